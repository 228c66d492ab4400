#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pg_cluster.sh start|stop DIR — a throwaway PostgreSQL server for the tests: Debian's
# postgresql package, a cluster made in a new directory under /tmp (initdb; short, so the
# socket's path fits, and reachable by the server's user wherever the checkout is),
# listening only on a Unix socket there, owned by an unprivileged user (the server refuses
# to run as root: when run as root it runs as `postgres`, the package's user). `start`
# writes the libpq URI of an empty database `nlkit` to DIR/uri (and the cluster's place to
# DIR/cluster); `stop` stops the server and removes both.
set -euo pipefail
cmd=${1:?start or stop} dir=${2:?directory}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "pg_cluster: the PostgreSQL server is not installed (./nlkit deps installs postgresql)" >&2
    exit 1
fi
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
stop() {
    local c
    c=$(cat "$dir/cluster" 2>/dev/null || true)
    if [ -n "$c" ] && [ -f "$c/data/postmaster.pid" ]; then
        as_owner "$bindir/pg_ctl" -D "$c/data" -m fast -w stop >/dev/null 2>&1 ||
            as_owner "$bindir/pg_ctl" -D "$c/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    case $c in /tmp/nlkit-pg-*) rm -rf "$c" ;; esac
    rm -rf "$dir"
}
case $cmd in
start)
    stop
    mkdir -p "$dir"
    c=$(mktemp -d /tmp/nlkit-pg-XXXXXX)
    echo "$c" >"$dir/cluster"
    [ "$(id -u)" = 0 ] && chown postgres: "$c"
    as_owner "$bindir/initdb" -D "$c/data" -U nlkit --auth=trust -E UTF8 --locale=C.UTF-8 \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    # fsync off: the tests kill nl-load, never the server; max_connections for many loaders
    as_owner "$bindir/pg_ctl" -D "$c/data" -l "$c/server.log" -w -t 60 \
        -o "-k $c -c listen_addresses='' -c fsync=off -c max_connections=200" start >/dev/null ||
        { cat "$c/server.log" >&2; exit 1; }
    "$bindir/psql" -h "$c" -U nlkit -d postgres -qAt -c "CREATE DATABASE nlkit" >/dev/null
    echo "postgresql://nlkit@/nlkit?host=$c" >"$dir/uri"
    echo "pg_cluster: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on $c ($(cat "$dir/uri"))"
    ;;
stop) stop ;;
*) echo "usage: pg_cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
