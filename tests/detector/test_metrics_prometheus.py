#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""nl-detect's metrics scraped by a real Prometheus (Debian's `prometheus` package).

Four nl-gridftp-sim servers (the live demo's) summarize their disk writes every 0.25 s into
nl-detect (demo/live.conf) with --metrics; gw3's disk slows to 30 % for 10 s and a transfer
on gw2 hangs. A Prometheus started here (temp dir, free port, 1 s scrape and rule
intervals, the shipped prometheus/nlkit.rules.yml) scrapes it. Checked through Prometheus'
HTTP API:
  - a rate: gw1's bytes/s over 15 s against the summaries' own v.sum in that window;
  - histogram_quantile(0.99, ...) of gw3's durations against the summaries' own p99
    (nl-baseline --percentiles dur), within the buckets' stated error;
  - the alerting rule NlkitAnomaly fired for gw3 (ALERTS), the slow-disk subscription's
    gauge was 1, the hung transfer was counted missing and NlkitMissingEnd fired for it, a
    recording rule has a value;
and, on the side, `promtool check rules`/`check config` on the shipped files and `promtool
check metrics` on the exposition.

Without prometheus/promtool the test fails, saying so (./nlkit deps installs them).
Usage: test_metrics_prometheus.py NL_DETECT NL_GRIDFTP_SIM NL_LOAD NL_BASELINE SOURCE_DIR
"""
import calendar
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

SECS = 26            # how long the servers run
SLOW = (10, 10, 0.3)  # gw3: from 10 s, for 10 s, at 30 % of its speed
HANG = 4             # gw2: a transfer that never ends, started at 4 s (timeout 15 s)
WIDTH = 0.2          # the widest bucket over its lower edge at 4 per octave (nld_metrics.h)
MID = 1 / 64         # the summaries' own percentiles: a bucket midpoint, within 1.6 %
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def query(prom, q, t=None):
    """An instant query; returns the result vector (list of {metric, value})."""
    args = {"query": q}
    if t is not None:
        args["time"] = "%.3f" % t
    r = json.loads(get("%s/api/v1/query?%s" % (prom, urllib.parse.urlencode(args))))
    if r.get("status") != "success":
        raise RuntimeError("query %s: %s" % (q, r))
    return r["data"]["result"]


def scalar(prom, q, t=None):
    res = query(prom, q, t)
    return float(res[0]["value"][1]) if res else None


def poll(what, fn, deadline_s):
    """Call fn until it returns a true value or the deadline passes (generous: 2 busy
    cores); returns its last value."""
    end = time.monotonic() + deadline_s
    while True:
        v = fn()
        if v or time.monotonic() > end:
            if not v:
                print("gave up waiting for " + what, flush=True)
            return v
        time.sleep(0.5)


def summaries(path, host):
    """(ts seconds, v.sum) of the host's disk-write summaries, read from the replayed lines."""
    out = []
    for line in open(path, errors="replace"):
        if "event=gridftp.disk.write.summary" not in line or " host=%s " % host not in line:
            continue
        f = dict(w.split("=", 1) for w in line.split() if "=" in w)
        ts = calendar.timegm(time.strptime(f["ts"][:19], "%Y-%m-%dT%H:%M:%S"))
        ts += float("0" + f["ts"][19:-1])
        out.append((ts, float(f.get("v.sum", 0))))
    return out


def main():
    nld, sim, load, baseline, src = sys.argv[1:6]
    prom_bin, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if not prom_bin or not promtool:
        print("FAIL: prometheus and promtool are needed (Debian's prometheus package: "
              "./nlkit deps installs it)", file=sys.stderr)
        return 1
    rules = os.path.join(src, "prometheus", "nlkit.rules.yml")
    r = subprocess.run([promtool, "check", "rules", rules], capture_output=True, text=True)
    check(r.returncode == 0, "promtool check rules prometheus/nlkit.rules.yml: " +
          (r.stdout + r.stderr).strip().replace("\n", " | "))
    r = subprocess.run([promtool, "check", "config", "prometheus.yml"], capture_output=True,
                       text=True, cwd=os.path.join(src, "prometheus"))
    check(r.returncode == 0, "promtool check config prometheus/prometheus.yml")

    tmp = tempfile.mkdtemp(prefix="nlkit-prom-")
    procs = []
    try:
        # nl-detect, its input a pipe that tee copies into a file (the summaries' own view)
        log = os.path.join(tmp, "sum.log")
        rfd, wfd = os.pipe()
        tee = subprocess.Popen(["tee", log], stdin=rfd, stdout=subprocess.PIPE)
        os.close(rfd)
        err = open(os.path.join(tmp, "nld.err"), "w+")
        det = subprocess.Popen([nld, "-c", os.path.join(src, "demo", "live.conf"), "-o",
                                os.path.join(tmp, "reports.log"), "--metrics", "127.0.0.1:0",
                                "--metrics-hold", "--stats"], stdin=tee.stdout, stderr=err)
        tee.stdout.close()
        procs += [tee, det]

        def addr():
            err.seek(0)
            for line in err.read().splitlines():
                if "metrics at http://" in line:
                    return line.split("http://")[1].split("/")[0]
            return None
        target = poll("nl-detect's address", addr, 30)
        if not target:
            check(False, "nl-detect serves its metrics")
            return 1

        # Prometheus on loopback, a free port, data in the temp dir
        port = free_port()
        cfg = os.path.join(tmp, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "  evaluation_interval: 1s\n"
                    "rule_files:\n  - %s\n"
                    "scrape_configs:\n  - job_name: nlkit\n    static_configs:\n"
                    "      - targets: ['%s']\n" % (rules, target))
        prom = "http://127.0.0.1:%d" % port
        plog = open(os.path.join(tmp, "prometheus.log"), "w")
        procs.append(subprocess.Popen(
            [prom_bin, "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(tmp, "data"),
             "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
            stdout=plog, stderr=subprocess.STDOUT))

        def ready():
            try:
                return "Ready" in get(prom + "/-/ready", 2)
            except OSError:
                return False
        if not poll("Prometheus to be ready", ready, 60):
            check(False, "Prometheus started (see %s/prometheus.log)" % tmp)
            return 1

        def up():
            try:
                return scalar(prom, 'up{job="nlkit"}') == 1
            except OSError:
                return False
        check(poll("the first scrape", up, 30), "Prometheus scrapes nl-detect (up == 1)")

        # the servers: 26 s of real time, their lines into nl-detect
        t0 = time.time()
        env = dict(os.environ, NL_DEST="-", NL_SUMMARY="gridftp.disk.write=summary:0.25")
        sims = []
        for h in (1, 2, 3, 4):
            extra = ([str(x) for x in SLOW] if h == 3 else
                     ["-1", "0", "1", str(HANG)] if h == 2 else [])
            sims.append(subprocess.Popen([sim, "gw%d" % h, str(SECS)] + extra, stdout=wfd,
                                         stderr=subprocess.DEVNULL, env=env))
        os.close(wfd)
        for p in sims:
            p.wait(timeout=SECS + 120)
        tee.wait(timeout=60)
        nlines = sum(1 for _ in open(log, "rb"))

        # every line read and scraped (nl-detect holds its endpoint after the input ends)
        def all_read():
            try:
                return scalar(prom, "nlkit_detect_lines_read_total") == nlines
            except OSError:
                return False
        check(poll("the last scrape", all_read, 30),
              "Prometheus has nl-detect's count of the %d lines read" % nlines)
        time.sleep(3)  # a few more scrapes and rule evaluations of the final state
        t_end = time.time()

        # a rate: gw1's bytes per second over [t0 + 7, t0 + 22], Prometheus' against the
        # summaries' own (summaries closing in that window)
        t1, t2 = t0 + 7, t0 + 22
        got = scalar(prom, 'rate(nlkit_activity_value_total{activity="gridftp.disk.write",'
                     'host="gw1"}[15s])', t2)
        want = sum(v for ts, v in summaries(log, "gw1") if t1 < ts <= t2) / (t2 - t1)
        check(got is not None and want > 0 and abs(got - want) <= 0.15 * want,
              "rate of gw1's bytes over 15 s: Prometheus %s B/s, the summaries %.4g B/s "
              "(within 15 %%)" % (got, want))

        # p99 of gw3's disk writes: histogram_quantile over the buckets against the
        # summaries' histograms merged (nl-baseline)
        got = scalar(prom, 'histogram_quantile(0.99, sum by (le) (rate('
                     'nlkit_activity_duration_seconds_bucket{activity="gridftp.disk.write",'
                     'host="gw3"}[5m])))', t_end)
        db = os.path.join(tmp, "a.db")
        subprocess.run([load, "-d", db, log], capture_output=True)
        out = subprocess.run([baseline, "-d", db, "-e", "gridftp.disk.write.summary", "-H",
                              "gw3", "-p", "dur"], capture_output=True, text=True).stdout
        f = dict(w.split("=", 1) for w in out.split() if "=" in w)
        want = float(f.get("p99", "nan"))
        tol = WIDTH + MID
        check(got is not None and abs(got - want) <= tol * want,
              "p99 of gw3's disk writes: histogram_quantile %s s, the summaries %s s "
              "(within %.1f %%)" % (got, want, 100 * tol))
        normal = scalar(prom, 'histogram_quantile(0.5, sum by (le) (rate('
                        'nlkit_activity_duration_seconds_bucket{host="gw1"}[5m])))', t_end)
        check(got is not None and normal is not None and got > 2 * normal,
              "gw3's p99 (%s s) shows the slow disk against gw1's median (%s s)" % (got, normal))

        # the alerting rule on the anomaly gauge fired for gw3
        fired = scalar(prom, 'max_over_time(ALERTS{alertname="NlkitAnomaly",'
                       'alertstate="firing",host="gw3"}[5m])', t_end)
        check(fired == 1, "alert NlkitAnomaly fired for gw3 (ALERTS)")
        sub = scalar(prom, 'max_over_time(nlkit_alerts_firing{alertname="slow-disk",'
                     'host="gw3"}[5m])', t_end)
        check(sub == 1, "the slow-disk subscription's gauge was 1 for gw3")
        eps = scalar(prom, 'sum(nlkit_anomaly_episodes_total{stream="disk",host="gw3"})', t_end)
        check(eps is not None and eps >= 1, "anomaly episodes counted for gw3: %s" % eps)
        miss = scalar(prom, 'nlkit_missing_ends_total{activity="gridftp.transfer"}', t_end)
        check(miss is not None and miss >= 1, "the hung transfer counted missing: %s" % miss)
        fired = scalar(prom, 'max_over_time(ALERTS{alertname="NlkitMissingEnd",'
                       'alertstate="firing",activity="gridftp.transfer"}[5m])', t_end)
        check(fired == 1, "alert NlkitMissingEnd fired for gridftp.transfer (ALERTS)")
        rec = scalar(prom, 'nlkit:activity_duration_seconds:p99_5m{host="gw3"}', t_end)
        check(rec is not None and rec > 0, "recording rule p99_5m for gw3: %s" % rec)

        # the exposition passes promtool's lint
        body = get("http://%s/metrics" % target)
        r = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True,
                           text=True)
        check(r.returncode == 0, "promtool check metrics on the exposition (%d lines)%s" %
              (body.count("\n"), (": " + r.stdout + r.stderr) if r.returncode else ""))

        # nl-detect stops cleanly on SIGTERM while serving (and, under ASan, leaks nothing)
        det.send_signal(signal.SIGTERM)
        rc = det.wait(timeout=60)
        err.seek(0)
        text = err.read()
        check(rc == 0 and "Sanitizer" not in text,
              "nl-detect exits 0 on SIGTERM with its endpoint up (exit %d)" % rc)
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if failures:
            print("kept for a look: " + tmp)
            for name in ("nld.err", "prometheus.log"):
                path = os.path.join(tmp, name)
                if os.path.exists(path):
                    print("---- " + name + "\n" + open(path, errors="replace").read()[-3000:])
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
