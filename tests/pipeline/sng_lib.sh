# SPDX-License-Identifier: BSD-3-Clause
# sng_lib.sh — what the syslog-ng pipeline test and benchmark share: daemons with their
# own pid/persist/control files in $T, waiting, queries of $T/archive.db, and a central
# daemon started on a free loopback port. Source it after setting T, SNG, CONF, NL_LOAD,
# NL_DETECT (and NLKIT_CENTRAL_DB for another archive than $T/archive.db, e.g. a PostgreSQL URI);
# it sets a trap that stops the daemons and removes $T (kept if NLKIT_KEEP is set).

fail() {
    echo "FAIL: $*" >&2
    for f in "$T"/*.log; do [ -s "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
    exit 1
}
stop() { # stop NAME: SIGTERM, wait for the daemon (and its programs) to go; then SIGKILL
    local pid
    pid=$(cat "$T/$1.bg" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        echo "warning: $1 syslog-ng did not stop in 20 s: killed" >&2
        pkill -KILL -P "$pid" 2>/dev/null || true
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$T/$1.bg"
}
cleanup() {
    stop host
    stop relay
    stop central
    if [ -n "${NLKIT_KEEP:-}" ]; then echo "kept $T" >&2; else rm -rf "$T"; fi
}
trap cleanup EXIT
start() { # start NAME: a syslog-ng with its own pid, persist and control files
    "$SNG" --no-caps -F -f "$T/$1.conf" -p "$T/$1.pid" -R "$T/$1.persist" -c "$T/$1.ctl" \
        >>"$T/$1.log" 2>&1 &
    echo $! >"$T/$1.bg"
}
wait_for() { # wait_for FILE WHAT
    for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done
    fail "timed out waiting for $2"
}
sql() { sqlite3 -cmd ".timeout 5000" "$T/archive.db" "$1"; }
wait_sql() { # wait_sql QUERY WANT SECONDS WHAT; with NO_FAIL set, returns 1 instead of failing
    local got=""
    for _ in $(seq $(($3 * 10))); do
        [ -e "$T/archive.db" ] && got=$(sql "$1" 2>/dev/null || true)
        [ "$got" = "$2" ] && return 0
        sleep 0.1
    done
    [ -n "${NO_FAIL:-}" ] && return 1
    fail "$4: wanted $2, got '${got}'"
}

# start_central EXTRA: nlkit_central on a free loopback port (sets PORT), with EXTRA
# parameters; a taken port makes the daemon exit, so a few are tried.
start_central() {
    local try
    for try in 1 2 3 4 5; do
        PORT=$((20000 + RANDOM % 30000))
        cat >"$T/central.conf" <<EOF
@version: 3.38
@include "$CONF/nlkit-central.conf"
nlkit_central(port($PORT) socket("$T/central.sock") archive("$T/archive")
              db("${NLKIT_CENTRAL_DB:-$T/archive.db}") detect_conf("$T/detect.conf") nl_load("$NL_LOAD")
              nl_detect("$NL_DETECT") errors("$T/tools.log") ${1:-});
EOF
        start central
        for _ in $(seq 50); do [ -e "$T/central.sock" ] && break; sleep 0.1; done
        sleep 0.3
        kill -0 "$(cat "$T/central.bg")" 2>/dev/null && return 0
        rm -f "$T/central.bg"
        grep -q "Error parsing" "$T/central.log" && fail "the central configuration is refused"
    done
    fail "central syslog-ng would not start"
}
