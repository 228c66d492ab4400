#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_package.sh — the Debian package, as a packager makes it and an operator meets it:
# configure a Release build for /usr (no tests), `cpack -G DEB`, lintian with no error, then
# unpacked with `dpkg-deb -x`: what it must hold, nlkit.pc in pkg-config's default path with
# plain paths, a program built against it (its prefix rewritten to the unpacked tree) that
# logs a line, the man pages where man looks, the systemd units verified and their
# ExecStart lines run against the unpacked tools.
#   test_package.sh SOURCE_DIR CC       (exit 77, skipped, without cpack's tools or lintian)
# With NLKIT_DEB_BUILD=DIR a build already configured that way is packaged instead.
set -euo pipefail
SRC=$1
CC=${2:-cc}
for t in dpkg-deb dpkg-shlibdeps lintian pkg-config man sqlite3; do
    command -v "$t" >/dev/null || { echo "skipped: no $t (./nlkit deps installs it)"; exit 77; }
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. the package, as docs/building.md says to make it
B=${NLKIT_DEB_BUILD:-$T/build}
if [ -z "${NLKIT_DEB_BUILD:-}" ]; then
    cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
        -DNLKIT_TESTS=OFF -DCMAKE_C_COMPILER="$CC" >"$T/configure.log" ||
        { cat "$T/configure.log"; fail "configure"; }
    cmake --build "$B" -j 2 >"$T/build.log" 2>&1 || { tail -n 40 "$T/build.log"; fail "build"; }
fi
(cd "$B" && cpack -G DEB -B "$T/out") >"$T/cpack.log" 2>&1 || { cat "$T/cpack.log"; fail "cpack -G DEB"; }
deb=$(find "$T/out" -maxdepth 1 -name 'nlkit_*.deb')
[ -n "$deb" ] || fail "cpack made no nlkit_*.deb"
echo "package: ${deb##*/}, $(stat -c %s "$deb") bytes"
dpkg-deb -f "$deb" Depends | grep -q 'libc6' || fail "no Depends from dpkg-shlibdeps"

# 2. lintian: no error (warnings are listed)
lintian --fail-on error "$deb" >"$T/lintian.log" 2>&1 || { cat "$T/lintian.log"; fail "lintian reports errors"; }
grep '^[EW]:' "$T/lintian.log" || true

# 3. what it holds, unpacked
R=$T/root
dpkg-deb -x "$deb" "$R"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
LIB=$R/usr/lib/$multiarch
for f in usr/bin/nl-detect usr/bin/nl-load usr/bin/nl-baseline usr/bin/nl-report usr/bin/nl-peers \
    usr/bin/nl-flows usr/bin/nl-bottleneck usr/include/nlkit/nl.h usr/include/nlkit/nl_version.h \
    "usr/lib/$multiarch/libnlkit.so.0" "usr/lib/$multiarch/libnlkit.a" \
    "usr/lib/$multiarch/pkgconfig/nlkit.pc" "usr/lib/$multiarch/cmake/nlkit/nlkitConfig.cmake" \
    usr/share/man/man1/nl-detect.1.gz usr/share/man/man1/nl-load.1.gz usr/share/man/man3/nl_write.3.gz \
    usr/share/nlkit/syslog-ng/nlkit-central.conf usr/share/nlkit/syslog-ng/nlkit-host.conf \
    usr/share/nlkit/prometheus/nlkit.rules.yml usr/share/nlkit/prometheus/prometheus.yml \
    usr/share/nlkit/examples/demo.conf usr/share/nlkit/alerts/webhook_sink.py \
    usr/share/nlkit/schemas/001-generic.sql usr/share/nlkit/lnav/nlkit_log.json \
    usr/lib/systemd/system/nl-detect.service usr/lib/systemd/system/nl-load.service \
    usr/lib/systemd/system/nl-load.timer usr/share/doc/nlkit/copyright; do
    [ -e "$R/$f" ] || fail "the package has no /$f"
done

# 4. nlkit.pc: in pkg-config's own search path (no PKG_CONFIG_PATH needed once installed),
# plain paths (it read -I/opt/nlkit/lib/pkgconfig/../../include), no run path under /usr
pc_path=$(pkg-config --variable pc_path pkg-config)
case ":$pc_path:" in *":/usr/lib/$multiarch/pkgconfig:"*) ;; *) fail "/usr/lib/$multiarch/pkgconfig is not in pkg-config's path ($pc_path)" ;; esac
export PKG_CONFIG_LIBDIR=$LIB/pkgconfig
[ "$(pkg-config --variable includedir nlkit)" = /usr/include ] || fail "includedir is $(pkg-config --variable includedir nlkit)"
[ "$(pkg-config --variable libdir nlkit)" = "/usr/lib/$multiarch" ] || fail "libdir is $(pkg-config --variable libdir nlkit)"
! grep -Eq 'pcfiledir|\.\./|rpath' "$LIB/pkgconfig/nlkit.pc" || fail "nlkit.pc: $(grep -E 'pcfiledir|\.\./|rpath' "$LIB/pkgconfig/nlkit.pc")"

# 5. a program built against the unpacked package, through its nlkit.pc
cat >"$T/hello.c" <<'C'
#include <nlkit/nl.h>
int main(void)
{
    nl_log_t *log = nl_open("-");
    if (!log) return 1;
    nl_write(log, "package.hello", "n=i", 42);
    nl_close(log);
    return 0;
}
C
flags=$(pkg-config --define-variable=prefix="$R/usr" --cflags --libs nlkit)
case $flags in *"$R/usr/include"*"$R/usr/lib/$multiarch"*) ;; *) fail "pkg-config gave '$flags'" ;; esac
# shellcheck disable=SC2086 # the flags are words
"$CC" "$T/hello.c" $flags -o "$T/hello" || fail "could not build against the package's nlkit.pc"
readelf -d "$T/hello" | grep -q 'NEEDED.*\[libnlkit.so.0\]' || fail "hello does not use libnlkit.so.0"
LD_LIBRARY_PATH=$LIB "$T/hello" | grep -q ' event=package.hello .* n=42$' || fail "hello did not log its line"
unset PKG_CONFIG_LIBDIR

# 6. man finds the pages where the package puts them (/usr/share/man, in man's own path)
man -M "$R/usr/share/man" -w nl-detect | grep -qx "$R/usr/share/man/man1/nl-detect.1.gz" || fail "man does not find nl-detect(1)"
man -M "$R/usr/share/man" -w nl_open_ex | grep -q 'nl_open.3.gz$' || fail "man does not find nl_open_ex(3)"
w=$(MANWIDTH=80 man --warnings -M "$R/usr/share/man" nl-load 2>&1 >/dev/null || echo "man failed")
[ -z "$w" ] || fail "nl-load(1) from the package: $w"

# 7. the units: systemd's own check, the sandbox they promise, then their commands, run
U=$R/usr/lib/systemd/system
if command -v systemd-analyze >/dev/null; then
    MANPATH=$R/usr/share/man systemd-analyze verify "$U/nl-detect.service" "$U/nl-load.service" \
        "$U/nl-load.timer" || fail "systemd-analyze verify"
else
    echo "systemd-analyze not installed: the units are not verified"
fi
for u in nl-detect nl-load; do
    for want in DynamicUser=yes User=nlkit ProtectSystem=strict StateDirectory=nlkit NoNewPrivileges=yes; do
        grep -qx "$want" "$U/$u.service" || fail "$u.service lacks $want"
    done
done
# ExecStart as the service manager runs it ($$ is a $), with /usr/bin and /etc/nlkit moved to
# the unpacked tree and the scratch directory
cmd_of() {
    sed -n "s|^ExecStart=/bin/[a-z]* -c '\\(.*\\)'\$|\\1|p" "$U/$1" |
        sed -e 's/\$\$/$/g' -e "s|/usr/bin/|$R/usr/bin/|g" -e "s|/etc/nlkit/|$T/etc/|g"
}
mkdir -p "$T/etc"
printf 'ts=2026-11-22T12:00:0%d.000000Z event=job.run.start level=Info job.id=%d\n' 1 1 2 2 >"$T/events.log"
load=$(cmd_of nl-load.service)
[ -n "$load" ] || fail "no ExecStart in nl-load.service"
NLKIT_DB=$T/archive.db NLKIT_EVENTS=$T/events.log bash -c "$load" || fail "nl-load.service's command failed: $load"
[ "$(sqlite3 "$T/archive.db" 'SELECT count(*) FROM event')" = 2 ] || fail "nl-load.service's command did not load the 2 events"
detect=$(cmd_of nl-detect.service)
[ -n "$detect" ] || fail "no ExecStart in nl-detect.service"
echo 'missing job.run timeout=10m' >"$T/etc/detect.conf"
rc=0
NLKIT_EVENTS=$T/events.log NL_DETECT_ARGS='--metrics 127.0.0.1:0' timeout 5 bash -c "$detect" \
    >"$T/detect.out" 2>"$T/detect.err" || rc=$?
# it follows its input until stopped: the timeout ends it, not an error of its own
[ $rc = 124 ] || { cat "$T/detect.err"; fail "nl-detect.service's command ended by itself ($rc): $detect"; }
grep -q 'metrics at http://127.0.0.1:' "$T/detect.err" || { cat "$T/detect.err"; fail "nl-detect did not serve its metrics"; }
echo "ok: ${deb##*/}: lintian without errors; a program built on its nlkit.pc logs; man finds its pages; its units verify and their commands run"
