# SPDX-License-Identifier: BSD-3-Clause
# sng_lib.sh — what the syslog-ng pipeline test and benchmark share: daemons with their
# own pid/persist/control files in $T, waiting, queries of $T/archive.db, a central daemon
# started on a free loopback port, and a host daemon with a local socket beside it. Source it after setting T, SNG, CONF, NL_LOAD,
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
    rm -f "$T/$1.ctl"
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

# refused_has TEXT SECONDS: wait until the central's refused file(s) hold a line with TEXT
# (a fixed string); 1 if none did in time
refused_has() {
    for _ in $(seq $(($2 * 10))); do
        grep -qaF -- "$1" "$T"/archive/nlkit-refused-*.log 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# free_port [ROOM]: a loopback port for a daemon to listen on, with ROOM ports above it free
# for its neighbours (default 20), picked below the kernel's ephemeral range: a port in that
# range can be the local end of any outgoing connection on the machine (a psql, another
# test's daemon), and a listener cannot take it then: the daemon exits, and what its
# programs send it goes nowhere. Random, so parallel tests rarely meet; when they do, the
# daemon exits and came_up says so.
free_port() {
    local lo room=${1:-20}
    lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    # a range that leaves no room below it: anywhere up to its usual start
    [ "$lo" -gt $((11000 + room)) ] || lo=32768
    echo $((10000 + RANDOM % (lo - 10000 - room)))
}
# came_up NAME: the daemon NAME just started has set up its whole configuration and runs:
# syslog-ng makes its control socket only once every source and destination is set up,
# while one that cannot (a port taken) exits without it, after it made its unix socket.
# 1 if it exited; fails the test if it did neither in 20 s.
came_up() {
    local pid
    pid=$(cat "$T/$1.bg")
    for _ in $(seq 200); do
        if ! kill -0 "$pid" 2>/dev/null; then
            rm -f "$T/$1.bg"
            return 1
        fi
        [ -S "$T/$1.ctl" ] && return 0
        sleep 0.1
    done
    fail "$1's syslog-ng neither came up nor exited in 20 s"
}

# start_central EXTRA: nlkit_central on a free loopback port (sets PORT), with EXTRA
# parameters, and CENTRAL_CONF (if set) after it in the configuration; a taken port makes
# the daemon exit, so a few are tried.
start_central() {
    local try
    for try in 1 2 3 4 5; do
        PORT=$(free_port)
        cat >"$T/central.conf" <<EOF
@version: 3.38
@include "$CONF/nlkit-central.conf"
nlkit_central(port($PORT) socket("$T/central.sock") archive("$T/archive")
              db("${NLKIT_CENTRAL_DB:-$T/archive.db}") detect_conf("$T/detect.conf") nl_load("$NL_LOAD")
              nl_detect("$NL_DETECT") errors("$T/tools.log") ${1:-});
${CENTRAL_CONF:-}
EOF
        rm -f "$T/central.sock"
        start central
        if came_up central; then
            wait_for "$T/central.sock" "the central daemon's socket"
            return 0
        fi
        grep -q "Error parsing" "$T/central.log" && fail "the central configuration is refused"
    done
    fail "central syslog-ng would not start"
}

# start_host_socket: a host daemon (nlkit_host) whose local socket is $T/host.sock, sending
# to the central daemon on PORT (start_central first), buffering in $T/buf; sets as_other,
# the words that run a command as uid 65534 (none when not root: then as this user)
start_host_socket() {
    cat >"$T/host.conf" <<EOF
@version: 3.38
@include "$CONF/nlkit-host.conf"
nlkit_host(socket("$T/host.sock") local_port($((PORT + 1))) central("127.0.0.1") port($PORT)
           buffer_dir("$T/buf") reopen(1));
EOF
    mkdir -p "$T/buf"
    start host
    came_up host || fail "the host daemon would not start: $(tail -n 3 "$T/host.log")"
    wait_for "$T/host.sock" "the host daemon's socket"
    # shellcheck disable=SC2034 # the callers run commands with it
    as_other=()
    [ "$(id -u)" = 0 ] && as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    return 0
}
