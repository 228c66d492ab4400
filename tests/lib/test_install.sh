#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_install.sh — the installed tree works for a program outside this project: install
# into a scratch prefix, check the library's SONAME, that it exports only the public nl_*
# API and that the man pages and lnav files are there, then build a tiny program against it twice — with
# pkg-config and with find_package(nlkit) — and run both, with no LD_LIBRARY_PATH.
#   test_install.sh BUILD_DIR CC
set -euo pipefail
B=$1
CC=${2:-cc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$B" --prefix "$T/p" >/dev/null
so=$(find "$T/p" -name 'libnlkit.so.0' | head -n1)
[ -n "$so" ] || fail "no libnlkit.so.0 installed"
libdir=$(dirname "$so")
[ -f "$libdir/libnlkit.a" ] || fail "no libnlkit.a beside it"
[ -f "$T/p/include/nlkit/nl.h" ] || fail "no include/nlkit/nl.h"
# the version is generated from project(): installed as made, not as its template
grep -Eq '^#define NLKIT_VERSION "[0-9]+\.[0-9]+\.[0-9]+"$' "$T/p/include/nlkit/nl_version.h" ||
    fail "no generated include/nlkit/nl_version.h"
[ ! -e "$T/p/include/nlkit/nl_version.h.in" ] || fail "the version template was installed"
for f in nl_open nl_close nl_write nl_writel nl_summarize nl_stats nl_set_guid nl_strerror \
    nl_traceparent nl_set_traceparent; do
    page=$T/p/share/man/man3/$f.3
    [ -e "$page" ] || fail "no man page $f(3)"
    w=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null || echo "man failed")
    [ -z "$w" ] || fail "$f(3): $w"
done
for f in nlkit_log.json nlkit.sql; do
    [ -f "$T/p/share/nlkit/lnav/$f" ] || fail "no share/nlkit/lnav/$f"
done
readelf -d "$so" | grep -q 'SONAME.*\[libnlkit.so.0\]' || fail "SONAME is not libnlkit.so.0"
exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ {sub(/@.*/, "", $3); print $3}')
leaked=$(echo "$exported" | grep -v '^nl_[a-z]' || true)
[ -z "$leaked" ] || fail "exports beyond nl_*: $(echo "$leaked" | head -5 | tr '\n' ' ')"
echo "$exported" | grep -qx nl_write || fail "nl_write is not exported"
[ -z "$(find "$T/p" -name 'libnl-3*' -o -name 'libnl.so*')" ] || fail "a name that collides with netlink's libnl"

mkdir -p "$T/app"
cat >"$T/app/hello.c" <<'C'
#include <nlkit/nl.h>
int main(void)
{
    nl_log_t *log = nl_open("-");
    if (!log) return 1;
    nl_write(log, "outside.hello", "n=i", 42);
    nl_close(log);
    return 0;
}
C
# 1. pkg-config
pc=$(find "$T/p" -name nlkit.pc | head -n1)
[ -n "$pc" ] || fail "no nlkit.pc installed"
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs nlkit)
"$CC" "$T/app/hello.c" $flags -o "$T/app/hello-pc"
# it starts as built, with no LD_LIBRARY_PATH and no ldconfig: the .pc gives a run path
# (it failed with "libnlkit.so.0: cannot open shared object file")
env -u LD_LIBRARY_PATH "$T/app/hello-pc" | grep -q ' event=outside.hello .* n=42$' ||
    fail "the pkg-config build did not start or log without LD_LIBRARY_PATH"
# 2. CMake package
cat >"$T/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(outside C)
find_package(nlkit 0.1 REQUIRED)
add_executable(hello hello.c)
target_link_libraries(hello PRIVATE nlkit::nlkit)
CM
CC=$CC cmake -S "$T/app" -B "$T/app/build" -DCMAKE_PREFIX_PATH="$T/p" >/dev/null
cmake --build "$T/app/build" >/dev/null
env -u LD_LIBRARY_PATH "$T/app/build/hello" | grep -q ' event=outside.hello .* n=42$' ||
    fail "the find_package build did not log"
echo "ok: installed under a scratch prefix; SONAME libnlkit.so.0, only nl_* exported; pkg-config and find_package builds run"
