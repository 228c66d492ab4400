#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_alerts_alertmanager.py — nl-detect's alerts in a real Alertmanager (Debian's
prometheus-alertmanager, run directly on a free loopback port with a temporary
configuration and storage, clustering off). Live input through a pipe, its lines stamped
with the wall clock. Checked through Alertmanager's API v2:

  - firing: GET /api/v2/alerts lists both hosts' alerts with the labels (alertname =
    the subscription's name, subscription, kind, severity, host), annotations (summary,
    description, runbook_url), startsAt (the alert's event time) and generatorURL;
  - grouping: Alertmanager (group_by: [alertname]) holds the two in one group
    (GET /api/v2/alerts/groups);
  - redelivery: with no new notification, each alert's updatedAt goes on advancing
    (refresh=1s), and the alerts stay active well past Alertmanager's resolve_timeout
    (6 s here), which lets go of an alert nobody sends again;
  - a silence made in Alertmanager (POST /api/v2/silences, host=h01) shows h01 as
    suppressed, silencedBy that silence; h00 stays active;
  - resolve: h00 recovers, its end goes out with endsAt and it leaves the active alerts,
    and it does not come back with later refreshes; h01 is still refreshed;
  - restart: nl-detect stopped and started again on its state file posts h01 (still
    firing) again at once, without a new start.

  test_alerts_alertmanager.py NL_DETECT
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
import traceback
import urllib.request
from datetime import datetime, timedelta, timezone

DETECT = sys.argv[1]
T = tempfile.mkdtemp(prefix="nla-am-test-")
procs = []


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    cleanup()
    os._exit(1)  # not waiting for the feeding thread


def check(cond, msg):
    if not cond:
        fail(msg)


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    log = os.path.join(T, "am.log")
    if os.path.exists(log) and os.environ.get("NLA_AM_KEEP") is None:
        shutil.rmtree(T, ignore_errors=True)


def on_exception(kind, value, tb):
    """An unexpected error fails the test like a check does: the servers stopped."""
    traceback.print_exception(kind, value, tb)
    fail("unexpected " + kind.__name__)


sys.excepthook = on_exception
sys.stdout.reconfigure(line_buffering=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_ts(s):
    """Alertmanager's RFC 3339 times (nanoseconds or none, Z) as datetimes."""
    s = s.rstrip("Z")
    if "." in s:
        head, frac = s.split(".")
        s = head + "." + (frac + "000000")[:6]
    else:
        s += ".000000"
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc)


def wait_for(pred, secs, what):
    """Poll pred until it returns something true (returned), or fail after secs."""
    end = time.time() + secs
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    fail("timed out after %g s waiting for %s" % (secs, what))


AM = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
if not AM:
    print("FAIL: prometheus-alertmanager is needed (Debian's prometheus-alertmanager: "
          "./nlkit deps installs it)", file=sys.stderr)
    sys.exit(1)

port = free_port()
URL = f"http://127.0.0.1:{port}"
open(os.path.join(T, "am.yml"), "w").write("""\
global:
  resolve_timeout: 6s
route:
  receiver: ops
  group_by: [alertname]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: ops
""")
am_log = open(os.path.join(T, "am.log"), "w")
procs.append(subprocess.Popen(
    [AM, "--config.file=" + os.path.join(T, "am.yml"),
     "--storage.path=" + os.path.join(T, "data"),
     "--web.listen-address=127.0.0.1:%d" % port,
     "--cluster.listen-address=", "--log.level=warn"],
    stdout=am_log, stderr=am_log))


def get(path):
    with urllib.request.urlopen(URL + path, timeout=10) as r:
        return json.loads(r.read() or b"null")


def post(path, body):
    req = urllib.request.Request(URL + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"null")


def ready():
    try:
        with urllib.request.urlopen(URL + "/-/ready", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


wait_for(ready, 60, "Alertmanager to answer on " + URL)


def alerts():
    """The active alerts named dip (Alertmanager lists no alert whose endsAt has passed),
    by host."""
    return {a["labels"].get("host"): a for a in get("/api/v2/alerts")
            if a["labels"].get("alertname") == "dip"}


# ---- nl-detect, fed live: x per host every 0.2 s, stamped now ---------------------------

low = {"h00": True, "h01": True}
stop_feed = threading.Event()
conf = os.path.join(T, "d.conf")
open(conf, "w").write(
    f"receiver am alertmanager://127.0.0.1:{port} refresh=1s timeout=5s backoff=0.2s "
    "generator=http://reports.example.org/{kind}/{name}\n"
    "when m x below 50 name=dip key=host\n"
    "route kind=alert notify am runbook=https://wiki.example.org/runbooks/{name}\n"
    f"alerts state={T}/alerts.state drain=5s\n")


class Detect:
    def __init__(self):
        self.err = open(os.path.join(T, "detect.err"), "a")
        self.p = subprocess.Popen(
            [DETECT, "-c", conf, "--stats", "-o", f"file://{T}/out.log?buffer=0"],
            stdin=subprocess.PIPE, stderr=self.err)
        procs.append(self.p)
        self.first = {}
        self.stop = threading.Event()
        self.t = threading.Thread(target=self.feed, daemon=True)
        self.t.start()

    def feed(self):
        while not self.stop.is_set():
            now = datetime.now(timezone.utc)
            lines = "".join(f"ts={iso(now)} event=m level=Info host={h} x={10 if low[h] else 100}\n"
                            for h in sorted(low))
            try:
                self.p.stdin.write(lines.encode())
                self.p.stdin.flush()
            except (BrokenPipeError, ValueError):
                return
            time.sleep(0.2)

    def end(self):
        """End its input (alerts open stay open, in the state file); its exit status."""
        self.stop.set()
        self.t.join()
        self.p.stdin.close()
        rc = self.p.wait(timeout=60)
        self.err.close()
        return rc


d = Detect()
t_begin = datetime.now(timezone.utc)

# firing: both hosts, with the labels, annotations and times Alertmanager should have
got = wait_for(lambda: (lambda a: a if len(a) == 2 else None)(alerts()), 60,
               "both hosts' alerts in Alertmanager")
for h in ("h00", "h01"):
    a = got[h]
    want = {"alertname": "dip", "subscription": "dip", "kind": "alert", "severity": "warning",
            "host": h}
    check(a["labels"] == want, f"{h}: labels {a['labels']}, want {want}")
    check(a["status"]["state"] == "active", f"{h} active: {a['status']}")
    check(a["annotations"].get("summary") == f"dip host={h}: x below 50 (value 10)",
          f"{h} summary: {a['annotations']}")
    check(" event=nl.alert.start " in a["annotations"].get("description", ""),
          f"{h} description is the detector's line: {a['annotations']}")
    check(a["annotations"].get("runbook_url") == "https://wiki.example.org/runbooks/dip",
          f"{h} runbook_url: {a['annotations']}")
    check(a["generatorURL"] == "http://reports.example.org/alert/dip",
          f"{h} generatorURL: {a['generatorURL']}")
    st = parse_ts(a["startsAt"])
    check(t_begin - timedelta(seconds=1) <= st <= datetime.now(timezone.utc),
          f"{h} startsAt {a['startsAt']} is the alert's event time (input began {iso(t_begin)})")
print("ok: firing, both hosts, with labels, annotations, startsAt and generatorURL")

# grouping: Alertmanager's group_by [alertname] holds the two in one group
def dip_groups():
    gs = [g for g in get("/api/v2/alerts/groups") if g["labels"].get("alertname") == "dip"]
    return gs if gs and sum(len(g["alerts"]) for g in gs) == 2 else None


gs = wait_for(dip_groups, 30, "the alerts in Alertmanager's groups")
check(len(gs) == 1 and gs[0]["labels"] == {"alertname": "dip"},
      f"one group {{alertname=dip}}: {[g['labels'] for g in gs]}")
check(sorted(a["labels"]["host"] for a in gs[0]["alerts"]) == ["h00", "h01"],
      "the group holds both hosts")
check(gs[0]["receiver"]["name"] == "ops", "routed to Alertmanager's receiver")
print("ok: grouping, one group {alertname=dip} of both hosts")

# redelivery: no new notification, yet updatedAt advances; active past resolve_timeout
u0 = parse_ts(got["h00"]["updatedAt"])
seen = [u0]


def refreshed_twice():
    a = alerts().get("h00")
    check(a is not None, "h00 stays active while refreshed")
    u = parse_ts(a["updatedAt"])
    if u > seen[-1]:
        seen.append(u)
    return len(seen) >= 3


wait_for(refreshed_twice, 30, "two refreshes of h00 (updatedAt advancing)")
t_first = time.time()
while time.time() - t_first < 15:  # 2.5 times resolve_timeout, refreshed every second
    a = alerts()
    check("h00" in a and "h01" in a, "both stay active past resolve_timeout (6 s)")
    time.sleep(0.5)
check(open(f"{T}/out.log").read().count("event=nl.alert.start") == 2,
      "two alert starts only: the refreshes are not new alerts")
print("ok: redelivery, updatedAt advancing and both active for 15 s past a 6 s resolve_timeout")

# a silence made in Alertmanager: h01 suppressed, h00 active
now = datetime.now(timezone.utc)
sid = post("/api/v2/silences", {
    "matchers": [{"name": "alertname", "value": "dip", "isRegex": False, "isEqual": True},
                 {"name": "host", "value": "h01", "isRegex": False, "isEqual": True}],
    "startsAt": iso(now), "endsAt": iso(now + timedelta(hours=1)),
    "createdBy": "test_alerts_alertmanager", "comment": "h01 in maintenance"})["silenceID"]


def suppressed():
    a = alerts()
    h01 = a.get("h01")
    return a if h01 and h01["status"]["state"] == "suppressed" else None


a = wait_for(suppressed, 30, "h01 suppressed by the silence")
check(a["h01"]["status"]["silencedBy"] == [sid], f"silenced by {sid}: {a['h01']['status']}")
check(a["h00"]["status"]["state"] == "active", f"h00 not silenced: {a['h00']['status']}")
print("ok: a silence made in Alertmanager suppresses h01, not h00")

# resolve: h00 recovers; its end goes out with endsAt, it leaves the active alerts
low["h00"] = False
wait_for(lambda: "h00" not in alerts(), 60, "h00 resolved (no longer active)")
h01_u = [parse_ts(alerts()["h01"]["updatedAt"])]


def h01_refreshed_twice():
    a = alerts()
    check("h00" not in a, "h00 stays resolved: the refreshes no longer post it")
    u = parse_ts(a["h01"]["updatedAt"])
    if u > h01_u[-1]:
        h01_u.append(u)
    return len(h01_u) >= 3


wait_for(h01_refreshed_twice, 30, "h01 refreshed twice after h00's resolve")
out = open(f"{T}/out.log").read()
check(out.count("event=nl.alert.end") == 1 and "host=h00" in out.split("event=nl.alert.end")[1],
      "one alert end, h00's")
print("ok: resolve, h00 inactive and not posted again; h01 still refreshed")

# restart on the state file: h01, still firing, is posted again at once
rc = d.end()
check(rc == 0, f"nl-detect exited {rc}: " + open(f"{T}/detect.err").read())
stats = [l for l in open(f"{T}/detect.err") if l.startswith("nl-detect: alerts:")]
check(stats and "opened=2 " in stats[-1] and "resolved=1 " in stats[-1] and
      "failures=0 " in stats[-1], f"alert counters: {stats}")
d = Detect()
t_restart = datetime.now(timezone.utc)


def h01_again():
    a = alerts().get("h01")
    return a and parse_ts(a["updatedAt"]) >= t_restart


# (from its state file: else nothing would post it before its next change, and Alertmanager
# would let it lapse)
wait_for(h01_again, 30, "h01 posted again by the restarted nl-detect")
check(parse_ts(alerts()["h01"]["startsAt"]) == parse_ts(got["h01"]["startsAt"]),
      "the same alert: its startsAt unchanged")
rc = d.end()
check(rc == 0, f"restarted nl-detect exited {rc}")
stats = [l for l in open(f"{T}/detect.err") if l.startswith("nl-detect: alerts:")]
check("opened=0 " in stats[-1] and "notifications=0 " in stats[-1],
      f"the restart carried h01 on: no new alert, no notification: {stats[-1]}")
print("ok: restart, h01 posted again from the state file, no new alert")

cleanup()
print("all Alertmanager checks passed")
