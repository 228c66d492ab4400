#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pg_cluster.sh start|stop DIR — a throwaway PostgreSQL server for the tests: Debian's
# postgresql package, a cluster made in DIR (initdb), listening only on a Unix socket in
# DIR, owned by an unprivileged user (the server refuses to run as root: when run as root
# it runs as `postgres`, the package's user). `start` writes the libpq URI of an empty
# database `nlkit` to DIR/uri; `stop` stops the server and removes DIR.
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
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 ||
            as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}
case $cmd in
start)
    stop
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    as_owner "$bindir/initdb" -D "$dir/data" -U nlkit --auth=trust -E UTF8 --locale=C.UTF-8 \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    # fsync off: the tests kill nl-load, never the server; max_connections for many loaders
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-k $dir -c listen_addresses='' -c fsync=off -c max_connections=200" start >/dev/null ||
        { cat "$dir/server.log" >&2; exit 1; }
    "$bindir/psql" -h "$dir" -U nlkit -d postgres -qAt -c "CREATE DATABASE nlkit" >/dev/null
    echo "postgresql://nlkit@/nlkit?host=$dir" >"$dir/uri"
    echo "pg_cluster: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on $dir ($(cat "$dir/uri"))"
    ;;
stop) stop ;;
*) echo "usage: pg_cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
