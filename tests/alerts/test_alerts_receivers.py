#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_alerts_receivers.py — nl-detect's alerts reach real receivers, and only when they
should: a webhook receiver on 127.0.0.1 (alerts/webhook_sink.py, Python's http.server)
that is quick, slow, answers 500, or is down and comes back; an exec: program; an nlkit
file. Checked: a 40-host simultaneous dip is one grouped notification (and one resolve); a
value hovering at the threshold is one alert with `clear`; every notification is delivered
exactly once after recovery, in order per group; nl-detect's input never stalls on a
receiver (each alert line is written within a second of the input that caused it, while
deliveries lag); silences hold back and then let go; a restart with the state file neither
repeats nor forgets an alert, and undelivered notifications are sent by the next run; a
state file cut short at any line is refused.

  test_alerts_receivers.py NL_DETECT WEBHOOK_SINK
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone

DETECT, SINK = sys.argv[1], sys.argv[2]
T = tempfile.mkdtemp(prefix="nla-test-")
T0 = datetime(2026, 11, 22, 12, 0, 0, tzinfo=timezone.utc)
procs = []


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def ts(sec):
    return (T0 + timedelta(seconds=sec)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def sink(name, port=0, delay=0.0, fail_first=0, tls=None):
    """Start a webhook receiver; returns (process, port, records file)."""
    out = os.path.join(T, name + ".jsonl")
    pf = os.path.join(T, name + ".port")
    args = [sys.executable, SINK, "--out", out, "--port", str(port), "--port-file", pf,
            "--delay", str(delay), "--fail", str(fail_first)] + (["--tls", *tls] if tls else [])
    p = subprocess.Popen(args)
    procs.append(p)
    for _ in range(200):
        if os.path.exists(pf):
            return p, int(open(pf).read()), out
        time.sleep(0.02)
    fail("webhook receiver did not start")


def received(path):
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.strip()]


def wait_for(pred, secs, what):
    end = time.time() + secs
    while time.time() < end:
        if pred():
            return
        time.sleep(0.05)
    fail("timed out waiting for " + what)


def dip_lines(hosts, start, end, low, total, value=lambda t, h, low: None):
    """One line per host per second; x=10 in [start, end), else 100."""
    out = []
    for t in range(total):
        for h in range(hosts):
            x = value(t, h, low)
            if x is None:
                x = 10 if low and start <= t < end else 100
            out.append(f"ts={ts(t)} event=m level=Info host=h{h:02d} x={x}\n")
    return out


def run(conf, lines, extra=(), pace=None, env=None):
    """Run nl-detect over lines (all at once, or `pace` lines per 0.1 s through a pipe).
    Returns (rc, stderr, out lines, {alert-line index: seconds from start it appeared},
    [seconds when each input line was written, per line])."""
    cf = os.path.join(T, "d.conf")
    open(cf, "w").write(conf)
    outp = os.path.join(T, "out.log")
    if os.path.exists(outp):
        os.unlink(outp)
    errp = open(os.path.join(T, "err.log"), "w")
    t_start = time.time()
    p = subprocess.Popen([DETECT, "-c", cf, "--stats", "-o", f"file://{outp}?buffer=0", *extra],
                         stdin=subprocess.PIPE, stderr=errp, env=env)
    seen = {}
    written = []
    stop = threading.Event()

    def watch():  # when each output line appears (wall clock)
        n = 0
        while not stop.is_set():
            if os.path.exists(outp):
                with open(outp) as f:
                    ls = f.readlines()
                while n < len(ls) and ls[n].endswith("\n"):
                    seen[n] = time.time() - t_start
                    n += 1
            time.sleep(0.02)

    w = threading.Thread(target=watch)
    w.start()
    if pace:
        for i in range(0, len(lines), pace):
            p.stdin.write("".join(lines[i:i + pace]).encode())
            p.stdin.flush()
            written.extend([time.time() - t_start] * len(lines[i:i + pace]))
            time.sleep(0.1)
    else:
        p.stdin.write("".join(lines).encode())
        written = [0.0] * len(lines)
    p.stdin.close()
    rc = p.wait(timeout=120)
    time.sleep(0.1)
    stop.set()
    w.join()
    errp.close()
    err = open(os.path.join(T, "err.log")).read()
    out = open(outp).read().splitlines() if os.path.exists(outp) else []
    return rc, err, out, seen, written


def stat(err, name):
    for line in err.splitlines():
        if line.startswith("nl-detect: alerts:"):
            for kv in line.split()[2:]:
                k, v = kv.split("=")
                if k == name:
                    return int(v)
    fail("no alerts stats in stderr:\n" + err)


def events(out, ev):
    return [l for l in out if f" event={ev} " in l]


def test_grouped_dip():
    """40 hosts dip together: one firing notification listing all 40, one resolve."""
    p, port, rec = sink("group")
    conf = (f"receiver ops http://127.0.0.1:{port}/hook timeout=5s backoff=0.2s\n"
            "when m x below 50 name=dip key=host\n"
            "route kind=alert notify ops group.by=name group.wait=10s\n")
    rc, err, out, _, _ = run(conf, dip_lines(40, 60, 90, True, 150))
    check(rc == 0, "nl-detect failed: " + err)
    check(len(events(out, "nl.alert.start")) == 40, "40 alert starts in the output")
    got = received(rec)
    check(len(got) == 2, f"two notifications (firing, resolved), got {len(got)}")
    a, b = got[0]["body"], got[1]["body"]
    check(a["status"] == "firing" and a["count"] == 40 and a["group"] == "name=dip",
          f"first: one firing group of 40: {a['status']} {a['count']} {a['group']}")
    check(sorted(x["key"] for x in a["alerts"]) == [f"dip host=h{h:02d}" for h in range(40)],
          "every host listed once")
    check(all(x["new"] and x["status"] == "firing" for x in a["alerts"]), "all new, firing")
    check(all(x["start"] == ts(60) and x["value"] == 10 for x in a["alerts"]), "start and value")
    check(b["status"] == "resolved" and b["count"] == 40 and b["seq"] == 2, "then one resolve of 40")
    check(all(x["end"] == ts(90) for x in b["alerts"]), "resolved at the recovery")
    check(not any(x["new"] for x in b["alerts"]),
          "the resolve marks no member new: all 40 were notified firing (they said new: true)")
    check(got[0]["id"] == a["id"] and a["id"] != b["id"], "notification ids in the header, distinct")
    check(stat(err, "notifications") == 2 and stat(err, "delivered") == 2, "counted")
    p.terminate()
    print("ok: a 40-host dip is one grouped notification and one resolve")


def test_hovering():
    """A value hovering at the threshold: ten alerts without hysteresis, one with clear."""
    def hover(t, h, low):
        if 30 <= t < 90:
            return 48 if (t // 3) % 2 == 0 else 52
        return None
    results = {}
    for name, clear in (("plain", ""), ("clear", " clear above 60")):
        p, port, rec = sink("hover-" + name)
        conf = (f"receiver ops http://127.0.0.1:{port}/ backoff=0.2s\n"
                f"when m x below 50{clear} name=hover key=host\n"
                "route notify ops\n")
        rc, err, out, _, _ = run(conf, dip_lines(1, 0, 0, False, 120, hover))
        check(rc == 0, "nl-detect failed: " + err)
        results[name] = [r["body"]["status"] for r in received(rec)]
        p.terminate()
    check(results["plain"] == ["firing", "resolved"] * 10,
          f"without clear: 10 alerts, got {results['plain']}")
    check(results["clear"] == ["firing", "resolved"], f"with clear: one alert, got {results['clear']}")
    print("ok: a hovering value is ten alerts without hysteresis, one with 'clear above'")


def alert_lines(n_keys, gap):
    """n_keys hosts, each dipping once in turn (gap seconds apart): 2 notifications each."""
    def v(t, h, low):
        return 10 if h * gap + 5 <= t < h * gap + 8 else 100
    return dip_lines(n_keys, 0, 0, False, n_keys * gap + 10, v)


def check_exactly_once_in_order(got, n_keys, what):
    per = {}
    for r in got:
        b = r["body"]
        per.setdefault(b["group"], []).append((b["seq"], b["status"]))
    check(len(per) == n_keys, f"{what}: {n_keys} groups, got {len(per)}")
    for g, lst in per.items():
        check(lst == [(1, "firing"), (2, "resolved")], f"{what}: group {g} got {lst}")
    ids = [r["id"] for r in got]
    check(len(ids) == len(set(ids)), f"{what}: a notification delivered twice")


def test_slow_receiver_never_stalls_input():
    """A receiver taking 0.4 s per request; input paced over ~3 s: every alert line is
    written within a second of its input while deliveries lag seconds behind."""
    p, port, rec = sink("slow", delay=0.4)
    conf = (f"receiver ops http://127.0.0.1:{port}/ timeout=5s\n"
            "when m x below 50 name=d key=host\n"
            "route notify ops\n")
    lines = alert_lines(8, 4)
    rc, err, out, seen, written = run(conf, lines, pace=40)
    check(rc == 0, "nl-detect failed: " + err)
    check_exactly_once_in_order(received(rec), 8, "slow receiver")
    # lag of each alert line behind the input line that caused it
    inputs = {l.split()[0]: i for i, l in reversed(list(enumerate(lines)))}
    worst = 0.0
    for i, l in enumerate(out):
        if " event=nl.alert." not in l:
            continue
        cause = inputs[l.split()[0]]
        worst = max(worst, seen[i] - written[cause])
    last_delivery = max(r["t"] for r in received(rec))
    check(worst < 1.0, f"an alert line waited {worst:.2f} s for its input: detection stalled")
    print(f"ok: slow receiver (0.4 s/request): alert lines at most {worst:.2f} s behind their "
          f"input; 16 notifications delivered once each, in order")
    p.terminate()
    return last_delivery


def test_500_then_ok():
    p, port, rec = sink("fivehundred", fail_first=3)
    conf = (f"receiver ops http://127.0.0.1:{port}/ backoff=0.1s\n"
            "when m x below 50 name=d key=host\n"
            "route notify ops\n")
    rc, err, out, _, _ = run(conf, alert_lines(3, 4))
    check(rc == 0, "nl-detect failed: " + err)
    check_exactly_once_in_order(received(rec), 3, "500 receiver")
    check(stat(err, "failures") == 3 and stat(err, "delivered") == 6, "3 failed attempts, 6 delivered")
    errs = events(out, "nl.notify.error")
    check(len(errs) == 3 and all("HTTP status 500" in l for l in errs),
          "each failed attempt reported as nl.notify.error")
    p.terminate()
    print("ok: a receiver answering 500 three times: retried, each notification delivered once")


def test_down_then_back():
    port = free_port()
    conf = (f"receiver ops http://127.0.0.1:{port}/ backoff=0.2s backoff.max=0.5s timeout=2s\n"
            "when m x below 50 name=d key=host\n"
            "route notify ops\n"
            "alerts drain=30s\n")
    rec = os.path.join(T, "back.jsonl")

    def come_back():
        time.sleep(2.5)
        sink("back", port=port)

    th = threading.Thread(target=come_back)
    th.start()
    lines = alert_lines(5, 4)
    rc, err, out, seen, written = run(conf, lines, pace=40)
    th.join()
    check(rc == 0, "nl-detect failed: " + err)
    got = received(rec)
    check_exactly_once_in_order(got, 5, "down then back")
    check(stat(err, "failures") >= 1, "attempts failed while down")
    first = min(r["t"] for r in got)
    check(all("Connection refused" in l or "connect" in l.lower() for l in events(out, "nl.notify.error")),
          "the failures say why")
    # input kept flowing while the receiver was down
    alerts = [i for i, l in enumerate(out) if " event=nl.alert.start " in l]
    check(alerts and seen[alerts[0]] < 2.0, "the first alert was written at once, receiver down")
    check(first > 0, "delivered after recovery")
    print(f"ok: receiver down then back: {len(got)} notifications, each once, in order "
          f"({stat(err, 'failures')} failed attempts while down)")


def test_exec_and_file():
    got = os.path.join(T, "exec.out")
    envf = os.path.join(T, "exec.env")
    filelog = os.path.join(T, "alerts.log")
    prog = f"cat >> {got}; echo >> {got}; echo \"$NL_ALERT_STATUS $NL_ALERT_COUNT $NL_ALERT_KEY\" >> {envf}"
    # a configuration word has no spaces: the receiving program is a script
    script = os.path.join(T, "recv.sh")
    open(script, "w").write("#!/bin/sh\n" + prog + "\n")
    os.chmod(script, 0o755)
    slow = os.path.join(T, "slow.sh")
    open(slow, "w").write("#!/bin/sh\nsleep 5\n")
    os.chmod(slow, 0o755)
    conf = (f"receiver run exec:{script} timeout=5s\n"
            f"receiver slowprog exec:{slow} timeout=0.5s retries=1 backoff=0.1s\n"
            "when m x below 50 name=d key=host\n"
            "route notify run continue\n"
            "route notify slowprog continue\n"
            f"route notify file://{filelog}?buffer=0\n")
    t = time.time()
    rc, err, out, _, _ = run(conf, alert_lines(2, 4))
    check(rc == 0, "nl-detect failed: " + err)
    bodies = [json.loads(l) for l in open(got) if l.strip()]
    check([b["status"] for b in bodies] == ["firing", "resolved"] * 2, "exec: JSON on stdin, in order")
    envs = open(envf).read().split("\n")
    check(envs[0] == "firing 1 d host=h00" and envs[1] == "resolved 1 d host=h00",
          f"exec: NL_ALERT_* variables: {envs[:2]}")
    check(stat(err, "given.up") == 4, "the slow program: killed at its limit, given up after a retry")
    check(len(events(out, "nl.notify.failed")) == 4 and
          all("killed" in l for l in events(out, "nl.notify.failed")), "reported as nl.notify.failed")
    flines = open(filelog).read().splitlines()
    check([l.split(" event=")[1].split()[0] for l in flines] ==
          ["nl.alert.start", "nl.alert.end"] * 2, "file receiver: the detector's own lines")
    print(f"ok: exec: receiver (JSON on stdin, NL_ALERT_* set), one killed at its time limit "
          f"and given up, a file receiver with the detector's lines ({time.time() - t:.1f} s)")


def gone(pid):
    """The process has ended: no such process, or a zombie (sh -c may fork the program;
    killed with its group, an orphan waits for PID 1 to reap it, which in a container may
    never come)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_hung_exec_receiver():
    """An exec: program that never reads its input, handed a notification larger than a
    pipe holds (a 1000-host group): the attempt ends at its timeout, the program is killed
    and nl-detect exits. Then, with a ten-minute timeout and input still open, SIGTERM ends
    nl-detect after drain= (1 s): the program is killed and the notification said lost.
    Both bounds (60 s) are far above what it takes, and far below 'never'."""
    mark = os.path.join(T, "hung.pids")
    hung = os.path.join(T, "hung.sh")
    open(hung, "w").write(f"#!/bin/sh\necho $$ >> {mark}\nexec sleep 600\n")
    os.chmod(hung, 0o755)
    lines = dip_lines(1000, 5, 8, True, 12)
    # the timeout case drains for 30 s, far longer than its 1 s timeout: with drain=1s too the
    # two ended together and which came first depended on the load (once "lost" instead of
    # "given up" beside an ASan build)
    for timeout, drain, signalled in (("1s", "30s", False), ("600s", "1s", True)):
        if os.path.exists(mark):
            os.unlink(mark)
        cf = os.path.join(T, "hung.conf")
        open(cf, "w").write(f"receiver hung exec:{hung} timeout={timeout} retries=0\n"
                            f"alerts drain={drain}\n"
                            "when m x below 50 name=dip key=host\n"
                            "route kind=alert notify hung group.by=name group.wait=2s\n")
        errp = os.path.join(T, "hung.err")
        p = subprocess.Popen([DETECT, "-c", cf, "--stats", "-o", os.path.join(T, "hung.out")],
                             stdin=subprocess.PIPE, stderr=open(errp, "w"))
        procs.append(p)
        t = time.time()
        p.stdin.write("".join(lines).encode())
        p.stdin.flush()
        if signalled:  # input stays open: only the signal ends the run
            wait_for(lambda: os.path.exists(mark), 60, "the hung receiver to start")
            time.sleep(0.2)
            p.send_signal(signal.SIGTERM)
        else:
            p.stdin.close()
        try:
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            fail(f"nl-detect hung on an exec: receiver that does not read (timeout={timeout}"
                 f"{', SIGTERM sent' if signalled else ''})")
        took = time.time() - t
        err = open(errp).read()
        check(rc == 0, f"nl-detect failed: {err}")
        pids = [int(x) for x in open(mark).read().split()]
        check(all(gone(x) for x in pids), f"the receiving program was left running: {pids}")
        if signalled:
            check("not delivered within 1 s: lost" in err, "the cut delivery is said: " + err)
        else:
            check(stat(err, "given.up") >= 1, "a timed-out attempt is given up: " + err)
            check("ran longer than 1 s: killed" in err, "said why: " + err)
        print(f"ok: exec: receiver that never reads a {'SIGTERM' if signalled else 'timeout'}"
              f" run: killed, nl-detect out in {took:.1f} s")


def test_sub_ms_timeout():
    """timeout=0.0005 (half a millisecond) is a time limit, not libcurl's 'no limit' (0 ms):
    a receiver that answers after 20 s fails every attempt at once and is given up."""
    p, port, rec = sink("submillis", delay=20)
    conf = (f"receiver slow http://127.0.0.1:{port}/ timeout=0.0005 retries=0\n"
            "alerts drain=30s\n"
            "when m x below 50 name=d key=host\n"
            "route notify slow\n")
    t = time.time()
    rc, err, out, _, _ = run(conf, alert_lines(1, 4))
    took = time.time() - t
    check(rc == 0, "nl-detect failed: " + err)
    check(stat(err, "given.up") == 2 and stat(err, "delivered") == 0,
          f"both attempts timed out at once ({took:.1f} s): " + err)
    p.terminate()
    print(f"ok: a sub-millisecond timeout is one (2 attempts given up in {took:.1f} s)")


def test_exit_cuts_slow_webhook():
    """drain=1s with a webhook that answers after 60 s and a 60 s timeout: the attempt in
    flight is cut when drain= ends, not waited for (it was: up to the timeout)."""
    p, port, rec = sink("stuck", delay=60)
    conf = (f"receiver stuck http://127.0.0.1:{port}/ timeout=60s\n"
            "alerts drain=1s\n"
            "when m x below 50 name=d key=host\n"
            "route notify stuck\n")
    t = time.time()
    rc, err, out, _, _ = run(conf, alert_lines(1, 4))
    took = time.time() - t
    check(rc == 0, "nl-detect failed: " + err)
    check(took < 30, f"nl-detect waited {took:.1f} s for a webhook past drain=1s")
    check(stat(err, "pending") == 2 and stat(err, "delivered") == 0,
          "the cut notification and the one behind it are counted as not delivered: " + err)
    p.terminate()
    print(f"ok: drain=1s cuts a webhook attempt in flight (out in {took:.1f} s)")


def test_silence():
    """Hosts h00-h04 silenced until t=75 (event time) during a dip from 60 to 90: the
    others notified at once, the five only once the silence ends, still firing."""
    p, port, rec = sink("silence")
    sil = os.path.join(T, "silences")
    open(sil, "w").write(f"silence *host=h0[0-4] until {ts(75)}\n")
    conf = (f"receiver ops http://127.0.0.1:{port}/\n"
            "when m x below 50 name=dip key=host\n"
            "route notify ops group.by=name group.wait=5s\n"
            f"alerts silences={sil}\n")
    rc, err, out, _, _ = run(conf, dip_lines(10, 60, 90, True, 120))
    check(rc == 0, "nl-detect failed: " + err)
    got = [r["body"] for r in received(rec)]
    check(len(got) == 3, f"three notifications, got {[(g['status'], g['count']) for g in got]}")
    first_keys = sorted(a["key"] for a in got[0]["alerts"])
    check(first_keys == [f"dip host=h{h:02d}" for h in range(5, 10)], f"first: h05-h09 only: {first_keys}")
    new2 = sorted(a["key"] for a in got[1]["alerts"] if a["new"])
    check(new2 == [f"dip host=h{h:02d}" for h in range(5)] and got[1]["count"] == 10,
          f"the silence ended: h00-h04 added to the group: {new2}")
    check(got[2]["status"] == "resolved" and got[2]["count"] == 10, "one resolve of all ten")
    check(not any(a["new"] for a in got[2]["alerts"]), "none of the ten new in the resolve")
    check(stat(err, "silenced") == 5, "five counted as silenced")
    p.terminate()
    print("ok: silences hold back 5 of 10 hosts until their time, then add them to the group")


def test_restart_state():
    """Run 1 stops in the middle of a dip (alerts open and notified); run 2 carries on from
    the state file: no second firing notification, one resolve. Then: run 3 cannot deliver
    (receiver down), its notifications wait in the state file; run 4 delivers them."""
    p, port, rec = sink("restart")
    state = os.path.join(T, "state")
    conf = (f"receiver ops http://127.0.0.1:{port}/ backoff=0.2s\n"
            "when m x below 50 name=dip key=host\n"
            "route notify ops group.by=name group.wait=5s\n"
            f"alerts state={state} drain=5s\n")
    lines = dip_lines(4, 60, 90, True, 150)
    cut = 75 * 4
    rc, err, out, _, _ = run(conf, lines[:cut])
    check(rc == 0, "run 1 failed: " + err)
    check([r["body"]["status"] for r in received(rec)] == ["firing"], "run 1: one firing notification")
    rc, err, out, _, _ = run(conf, lines[cut:])
    check(rc == 0, "run 2 failed: " + err)
    got = [r["body"] for r in received(rec)]
    check([g["status"] for g in got] == ["firing", "resolved"],
          f"run 2: the same alerts go on, then resolve once: {[g['status'] for g in got]}")
    check(got[1]["count"] == 4 and stat(err, "opened") == 0, "run 2 opened nothing new")
    check(len(events(out, "nl.alert.start")) == 0 and len(events(out, "nl.alert.end")) == 4,
          "run 2: the engine continued the restored alerts")
    check(all("restored=1" in l for l in events(out, "nl.alert.end")), "marked restored")
    p.terminate()
    p.wait()
    # undelivered notifications survive a restart
    os.unlink(rec)
    os.unlink(state)
    rc, err, out, _, _ = run(conf.replace("drain=5s", "drain=1s"), lines)
    check(rc == 0, "run 3 failed: " + err)
    check(stat(err, "pending") == 2 and stat(err, "saved") == 2, "run 3: two notifications kept")
    sink("restart", port=port)
    rc, err, out, _, _ = run(conf, [])
    check(rc == 0, "run 4 failed: " + err)
    got = [r["body"] for r in received(rec)]
    check([g["status"] for g in got] == ["firing", "resolved"] and all(g["count"] == 4 for g in got),
          f"run 4 delivered what run 3 could not: {[g['status'] for g in got]}")
    print("ok: a restart neither repeats nor forgets: open alerts continue, undelivered "
          "notifications are sent by the next run")


def state_records(data):
    """The (kind, end offset) of each record of a state file (format 1 or 2), parsed as
    alerts/nla_state.c writes them: a header of numbers, then the bytes it counts, then \\n."""
    first = data.index(b"\n") + 1
    out, p = [], first
    while p < len(data):
        nl = data.index(b"\n", p)
        h = data[p:nl].split()
        p = nl + 1
        kind = h[0].decode()
        if kind == "E":
            out.append(("E", p))
            continue
        lens = {"G": h[5:6], "A": h[7:10], "N": h[1:6] + h[8:10]}[kind]
        p += sum(int(x) for x in lens) + 1
        out.append((kind, p))
    return first, out


def test_state_cut():
    """A state file cut short is refused, wherever the cut: three hosts' alerts open and
    three notifications undelivered (the receiver is down) make the file; every prefix of it
    ending in a newline (each record boundary among them) stops nl-detect with exit 2, naming
    the file and the record. The whole file is read (the notifications kept again), and the
    same records in format 1 (an earlier nlkit: no end record) are read, saying so."""
    port = free_port()  # nobody listens: nothing is delivered
    state = os.path.join(T, "state-cut")
    conf = (f"receiver ops http://127.0.0.1:{port}/ backoff=0.2s\n"
            "when m x below 50 name=dip key=host\n"
            "route notify ops\n"
            f"alerts state={state} drain=0.3s\n")
    rc, err, out, _, _ = run(conf, dip_lines(3, 30, 200, True, 60))
    check(rc == 0, "nl-detect failed: " + err)
    check(stat(err, "saved") == 3, "three notifications kept: " + err)
    data = open(state, "rb").read()
    first, recs = state_records(data)
    kinds = [k for k, _ in recs]
    check(kinds.count("N") == 3 and kinds.count("A") == 3 and kinds[-1] == "E" and
          data.endswith(b"E %d\n" % (len(recs) - 1)), f"records {kinds}, end record counts them")
    cut = os.path.join(T, "state-cut-short")
    cf = os.path.join(T, "cut.conf")
    open(cf, "w").write(conf.replace(f"state={state}", f"state={cut}"))
    boundaries = {first} | {e for _, e in recs[:-1]}
    cuts = [i + 1 for i in range(len(data) - 1) if data[i] == 0x0a]
    check(boundaries <= set(cuts), "every record boundary is among the cuts")
    for n in cuts:
        open(cut, "wb").write(data[:n])
        r = subprocess.run([DETECT, "-c", cf, "--stats"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60)
        check(r.returncode == 2 and f"state file {cut}:" in r.stderr and
              ("record" in r.stderr or "first line" in r.stderr),
              f"cut after byte {n} of {len(data)}: refused with file and record: "
              f"rc={r.returncode} {r.stderr}")
        if n in boundaries and n > first:
            k = sorted(boundaries).index(n)
            check(f"cut short after record {k}: no end record" in r.stderr,
                  f"cut at the end of record {k}: {r.stderr}")
    print(f"ok: a state file cut after any of its {len(cuts)} lines ({len(boundaries)} record "
          "boundaries) is refused, naming the file and the record")
    nrec = len(recs) - 1
    for text, want in ((data[:data.rindex(b"E ")] + b"E %d\n" % (nrec + 1),
                        f"counts {nrec + 1} record(s), the file holds {nrec}"),
                       (data + b"G 0 1 2 3 0\n\n", "after its end record")):
        open(cut, "wb").write(text)
        r = subprocess.run([DETECT, "-c", cf], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=60)
        check(r.returncode == 2 and want in r.stderr and cut in r.stderr, f"{want}: {r.stderr}")
    # the whole file is read: the three notifications kept again
    open(cut, "wb").write(data)
    rc, err, _, _, _ = run(conf.replace(f"state={state}", f"state={cut}"), [])
    check(rc == 0 and stat(err, "saved") == 3, "the whole file read: " + err)
    # format 1: the same records without the end record, read and said
    v1 = data[:first].replace(b"state 2", b"state 1") + data[first:data.rindex(b"E ")]
    open(cut, "wb").write(v1)
    rc, err, _, _, _ = run(conf.replace(f"state={state}", f"state={cut}"), [])
    check(rc == 0 and stat(err, "saved") == 3 and "format 1" in err, "format 1 read: " + err)
    check(open(cut, "rb").read().startswith(b"nlkit-alerts-state 2\n"), "and saved as format 2")
    print("ok: a whole state file is read; a bad end count or bytes after it are refused; "
          "format 1 (no end record) is still read, saying so")


def test_config_errors():
    cf = os.path.join(T, "bad.conf")
    for text, want in (("route notify nobody\n", "bad.conf:1:14: no receiver named 'nobody'"),
                       ("receiver a http://x/ timeout=-1\n", "bad.conf:1:22: bad value for timeout"),
                       ("silence x* until yesterday\n", "bad.conf:1:18: bad time 'yesterday'"),
                       ("when m x below 50 clear below 40\n", "bad.conf:1:25:")):
        open(cf, "w").write(text)
        r = subprocess.run([DETECT, "-c", cf], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        check(r.returncode == 2 and want in r.stderr, f"config error for {text!r}: {r.stderr}")
    open(cf, "w").write(f"when m x below 50\nalerts state={T}/state-bad\nroute notify -\n")
    open(f"{T}/state-bad", "w").write("nlkit-alerts-state 1\nA 9 9\n")
    r = subprocess.run([DETECT, "-c", cf], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    check(r.returncode == 2 and "damaged at record 1" in r.stderr, "a damaged state file: " + r.stderr)
    print("ok: configuration and state file errors say where")


def test_https():
    """An https receiver with the site's own CA (ca=): delivered; without it the certificate
    is refused, reported, and (retries=0) given up."""
    cert, key = os.path.join(T, "cert.pem"), os.path.join(T, "key.pem")
    r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], capture_output=True, text=True)
    check(r.returncode == 0, "openssl: " + r.stderr)
    p, port, rec = sink("tls", tls=(cert, key))
    conf = (f"receiver good https://127.0.0.1:{port}/ ca={cert} backoff=0.1s\n"
            f"receiver bad https://127.0.0.1:{port}/ retries=0\n"
            "when m x below 50 name=d key=host\n"
            "route notify good continue\n"
            "route notify bad\n")
    rc, err, out, _, _ = run(conf, alert_lines(1, 4))
    check(rc == 0, "nl-detect failed: " + err)
    got = received(rec)
    check([g["body"]["status"] for g in got] == ["firing", "resolved"], "https: both delivered once")
    failed = events(out, "nl.notify.failed")
    check(len(failed) == 2 and all("certificate" in l.lower() for l in failed),
          "an unknown CA refused, and said: " + (failed[0] if failed else err))
    check(stat(err, "given.up") == 2, "given up, counted")
    p.terminate()
    print("ok: https with the site's CA delivered; an untrusted certificate refused and reported")


def test_every_kind_routed():
    """Anomaly episodes and missing ends are routed like subscription alerts (by kind)."""
    p, port, rec = sink("kinds")
    conf = (f"receiver ops http://127.0.0.1:{port}/\n"
            "stream s event=m value=x key=host history=30 min=30 episode.min=3 algo=msd-hu\n"
            "missing xfer timeout=10\n"
            "route kind=anomaly notify ops\n"
            "route kind=missing key=*guid=g2* notify ops\n")
    lines = dip_lines(1, 60, 70, True, 100)
    lines.insert(40, f"ts={ts(40)} event=xfer.start level=Info guid=g1\n")
    lines.insert(41, f"ts={ts(40)} event=xfer.start level=Info guid=g2\n")
    rc, err, out, _, _ = run(conf, lines)
    check(rc == 0, "nl-detect failed: " + err)
    got = [(a["kind"], b["status"], a["key"]) for b in (r["body"] for r in received(rec)) for a in b["alerts"]]
    check(("anomaly", "firing", "s algo=msd-hu host=h00") in got and
          ("anomaly", "resolved", "s algo=msd-hu host=h00") in got, f"the anomaly episode: {got}")
    check(("missing", "firing", "xfer guid=g2") in got, f"the missing end of g2: {got}")
    check(not any("g1" in k for _, _, k in got), "g1's missing end is not routed (key glob)")
    check(stat(err, "unrouted") == 1, "and counted as unrouted")
    p.terminate()
    print("ok: anomaly episodes and missing ends routed by kind and key glob")


try:
    test_config_errors()
    test_https()
    test_every_kind_routed()
    test_grouped_dip()
    test_hovering()
    test_500_then_ok()
    test_slow_receiver_never_stalls_input()
    test_down_then_back()
    test_exec_and_file()
    test_hung_exec_receiver()
    test_exit_cuts_slow_webhook()
    test_sub_ms_timeout()
    test_silence()
    test_restart_state()
    test_state_cut()
finally:
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
    shutil.rmtree(T, ignore_errors=True)
