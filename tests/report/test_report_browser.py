#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_report_browser.py — the demo's report, rendered by a real browser.

Runs the main demo (demo/pipeline.sh: four GridFTP-like servers through two syslog-ng
daemons into nl-load and nl-detect; gw3's disk slowed from 20 s to 30 s, a transfer on gw2
hung), then opens the page it ends with in headless Chromium through chromedriver (the W3C
WebDriver protocol over plain HTTP, nlr_browser.py) and checks what was drawn, against the
archive the page was made from:
  - no console message of level SEVERE, and nothing fetched (the page is self-contained);
  - one chart per activity and host in the archive, each with one series of non-zero size;
  - on each disk-write chart as many shaded episodes as nl-detect reported for that host;
  - the injected slowdown's middle (25 s after gw3 began) lies inside a shaded episode of
    gw3's chart as laid out on screen (bounding boxes, not only attributes);
  - the hung transfer's missing-end mark on gw2's transfer chart, and a lifeline;
  - the overview's p99 of every summarized activity (it showed "—"), gw3's disk writes'
    well above its peers' (the demo's fault), and units in the headers;
  - gw3's baseline band computed without the flagged values (or from history), labelled
    so, with the slowdown's rates clearly below it (its p5 was the dip itself);
  - under every disk-write chart its p50, p90 and p99 and its error ratio per pixel column,
    the values read back off the drawn paths equal to the archive's dur.h histograms merged
    per column and its err.n / n; gw3's slow disk failing writes (error ratio above 0, the
    overview's errors column), its peers at 0%;
and saves a screenshot (OUT/report.png); with NLKIT_UPDATE_SCREENSHOT=1 in the environment,
and every check passed, also into SOURCE_DIR/docs/report.png, the picture README.md shows,
so that picture is always one this test took of the demo's archive.

  test_report_browser.py SOURCE_DIR BUILD_DIR OUT_DIR
Exit 77 (skipped) if chromium or chromedriver is missing, saying so.
"""
import base64
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nlr_browser import Browser, need_browser  # noqa: E402

SRC, BUILD, OUT = sys.argv[1:4]
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


need_browser()

os.makedirs(OUT, exist_ok=True)
demo = subprocess.run(["bash", os.path.join(SRC, "demo/pipeline.sh"), BUILD, "45", OUT],
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
with open(os.path.join(OUT, "demo.out"), "w") as f:
    f.write(demo.stdout)
if demo.returncode != 0:
    print(demo.stdout[-3000:])
    print(f"FAIL: the demo exited {demo.returncode}")
    sys.exit(1)
page = os.path.join(OUT, "demo-report.html")
check(os.path.getsize(page) > 0, f"the demo wrote {page}")

# What the page should show, from the archive it was made from.
db = sqlite3.connect(os.path.join(OUT, "demo.db"))
q = lambda sql, *a: db.execute(sql, a).fetchall()
summary_charts = q("SELECT DISTINCT event, host FROM summary")
pair_hosts = q("""SELECT DISTINCT h.value FROM event e JOIN value h ON h.event_id = e.id AND
                  h.name = 'host' WHERE e.event = 'gridftp.transfer.start'""")
episodes = dict(q("""SELECT k.value, count(*) FROM event e JOIN value k ON k.event_id = e.id
                     AND k.name = 'key.host' WHERE e.event = 'nl.anomaly.start' GROUP BY 1"""))
missing = q("SELECT count(*) FROM event WHERE event = 'nl.missing'")[0][0]
gw3_first = q("SELECT min(ts) FROM summary WHERE host = 'gw3'")[0][0]
known = gw3_first - 0.25 + 25  # the middle of gw3's slow 20-30 s (first summary: 0.25 s in)
check(episodes.get("gw3", 0) >= 1, f"nl-detect reported gw3's slow disk ({episodes})")
# no transfer cut short by the run's end (its quick end drew as a dip on the page): at full
# speed the shortest takes 150 x 4 MiB / 420 MB/s = 1.5 s
shortest = q("""SELECT min(e.ts - s.ts) FROM event s JOIN ident gs ON gs.event_id = s.id AND
                gs.name = 'guid' JOIN ident ge ON ge.name = 'guid' AND ge.value = gs.value
                JOIN event e ON e.id = ge.event_id AND e.event = 'gridftp.transfer.end'
                WHERE s.event = 'gridftp.transfer.start'""")[0][0]
check(shortest is not None and shortest > 1.3,
      f"no transfer cut short at the run's end (the shortest took {shortest} s)")


with Browser(OUT) as b:
    b.open(page)
    js = b.js

    # the page as the browser laid it out
    charts = js("""
        return [...document.querySelectorAll('svg.chart')].map(s => {
          const b = s.getBoundingClientRect(), vb = s.viewBox.baseVal;
          const series = [...s.querySelectorAll('path.series')].map(p => {
            const r = p.getBoundingClientRect(); return [r.width, r.height]; });
          return {activity: s.dataset.activity, host: s.dataset.host,
                  t0: +s.dataset.t0, t1: +s.dataset.t1, x0: +s.dataset.x0,
                  width: +s.dataset.width, left: b.left, scale: b.width / vb.width,
                  series: series,
                  episodes: [...s.querySelectorAll('rect.episode')].map(e => {
                    const r = e.getBoundingClientRect();
                    return {t0: +e.dataset.t0, t1: +e.dataset.t1, left: r.left,
                            right: r.right, height: r.height}; }),
                  missing: s.querySelectorAll('g.missing').length};
        });""")
    fetched = js("return performance.getEntriesByType('resource').map(e => e.name)")
    heads = js("return [...document.querySelectorAll('table.overview th')].map(t => t.textContent)")
    rows = js("""
        const heads = [...document.querySelectorAll('table.overview th')].map(t => t.textContent);
        return [...document.querySelectorAll('table.overview tbody tr')].map(tr => {
          const o = {}; [...tr.cells].forEach((td, i) => o[heads[i]] = td.textContent); return o; });""")
    bands = js("""
        return [...document.querySelectorAll('svg.chart')].map(s => {
          const b = s.querySelector('rect.band'), cap = s.closest('figure').querySelector('figcaption');
          return {activity: s.dataset.activity, host: s.dataset.host, caption: cap.textContent,
                  p5: b ? +b.dataset.p5 : null, p95: b ? +b.dataset.p95 : null,
                  from: b ? b.dataset.from : null}; });""")
    durs = js("""
        return [...document.querySelectorAll('svg.durations')].map(s => {
          const ch = s.closest('figure').querySelector('svg.chart');
          return {activity: ch.dataset.activity, host: ch.dataset.host,
                  t0: +s.dataset.t0, t1: +s.dataset.t1, x0: +s.dataset.x0,
                  width: +s.dataset.width,
                  paths: [...s.querySelectorAll('path')].map(p => ({
                    cls: p.getAttribute('class'), d: p.getAttribute('d'), top: +p.dataset.top,
                    y0: +p.dataset.y0, h: +p.dataset.h,
                    w: p.getBoundingClientRect().width}))}; });""")
    lifelines = js("return [...document.querySelectorAll('svg.lifeline')].map(s => "
                   "s.querySelectorAll('circle.life-ev').length)")
    severe = b.severe()
    png = base64.b64decode(b.screenshot())
    with open(os.path.join(OUT, "report.png"), "wb") as f:
        f.write(png)

check(not severe, f"no console errors ({severe[:3]})")
check(not fetched, f"nothing fetched ({fetched[:3]})")
want = {(e[:-len(".summary")], h) for e, h in summary_charts} | \
       {("gridftp.transfer", h) for (h,) in pair_hosts}
got = {(c["activity"], c["host"]) for c in charts}
check(got == want, f"one chart per activity and host: {len(got)} drawn, {len(want)} in the archive")
check(all(len(c["series"]) == 1 for c in charts), "each chart has one series")
check(all(w > 10 and h > 0 for c in charts for (w, h) in c["series"]),
      "each series was laid out with a size")
for c in charts:
    if c["activity"] == "gridftp.disk.write":
        n = episodes.get(c["host"], 0)
        check(len(c["episodes"]) == n,
              f"{c['host']}: {len(c['episodes'])} shaded episodes, {n} reported")
gw3 = [c for c in charts if c["activity"] == "gridftp.disk.write" and c["host"] == "gw3"]
if gw3:
    c = gw3[0]
    x = c["left"] + (c["x0"] + (known - c["t0"]) / (c["t1"] - c["t0"]) * c["width"]) * c["scale"]
    inside = [e for e in c["episodes"] if e["left"] <= x <= e["right"] and e["height"] > 50]
    check(bool(inside), f"the slowdown's middle (x={x:.1f} px on screen) is inside a shaded "
          f"episode ({[(round(e['left']), round(e['right'])) for e in c['episodes']]})")
    check(all(e["t0"] <= known <= e["t1"] for e in inside),
          "and that episode's own times hold it")
gw2 = [c for c in charts if c["activity"] == "gridftp.transfer" and c["host"] == "gw2"]
check(missing >= 1 and bool(gw2) and gw2[0]["missing"] == missing,
      f"the hung transfer's missing end is marked on gw2 ({missing} reported)")
check(bool(lifelines) and lifelines[0] >= 2, f"a lifeline with its events ({lifelines})")

# p99 for summarized activities, from their histograms; units in the headers
check("p99 dur (s)" in heads and "mean dur (s)" in heads and
      any(h.startswith("mean (") for h in heads), f"units in the overview's headers ({heads})")


def secs(text):
    """A cell such as 36.6ms or 1.2s, in seconds (None for the dash)."""
    for suffix, k in (("ms", 1e-3), ("µs", 1e-6), ("us", 1e-6), ("ns", 1e-9), ("s", 1)):
        if text.endswith(suffix):
            try:
                return float(text[:-len(suffix)]) * k
            except ValueError:
                return None
    return None


p99 = {r["host"]: secs(r["p99 dur (s)"]) for r in rows if r["activity"] == "gridftp.disk.write"}
check(len(p99) == 4 and all(v is not None for v in p99.values()),
      f"a p99 for every summarized disk-write row ({p99})")
arch_p99 = dict(q("SELECT host, max(dur_p99) FROM summary WHERE event = "
                  "'gridftp.disk.write.summary' GROUP BY host"))
if len(p99) == 4 and all(v is not None for v in p99.values()):
    peers = [v for h, v in p99.items() if h != "gw3"]
    # the slow disk writes at 0.3 of its speed (3.3x the time); on two loaded cores every
    # host's sleeps wake late, which lifts the peers' p99 more than gw3's (0.018 s against
    # 0.037 s seen under ASan with other tests beside it), so the margin asked is 1.5x
    check(p99["gw3"] > 1.5 * max(peers),
          f"gw3's p99 ({p99['gw3']}) well above its peers' ({peers}): the demo's fault")
    check(all(v <= arch_p99[h] * 1.02 for h, v in p99.items()),
          f"no p99 beyond the largest interval's in the archive ({arch_p99})")
# gw3's band: without the flagged values (or from history), labelled so, the dip below it
gb = [b for b in bands if b["activity"] == "gridftp.disk.write" and b["host"] == "gw3"]
if gw3 and gb:
    b, ep = gb[0], gw3[0]["episodes"]
    check(b["from"] in ("window-unflagged", "history"),
          f"gw3's band leaves out the flagged values or comes from history ({b['from']})")
    check("without the" in b["caption"] or "history before the window" in b["caption"],
          f"and its caption says which: {b['caption'][:160]}")
    if ep:
        t0, t1 = min(e["t0"] for e in ep), max(e["t1"] for e in ep)
        dip = sorted(r for (r,) in q("SELECT rate FROM summary WHERE host = 'gw3' AND event = "
                                     "'gridftp.disk.write.summary' AND ts BETWEEN ? AND ?", t0, t1))
        mid = dip[len(dip) // 2] if dip else None
        check(mid is not None and b["p5"] is not None and mid < 0.8 * b["p5"],
              f"the slowdown's median rate ({mid}) lies clearly below the band (p5 {b['p5']})")
else:
    check(False, "gw3's disk-write chart has a baseline band")


# Latency and errors under each summarized chart: p50, p90, p99 per pixel column, read back
# off the paths as drawn, against the archive's histograms (dur.h) merged per column here;
# the error ratio per column against err.n / n; gw3's slow disk failing writes, its peers not.
def hist_mid(k):
    import struct
    if k < 32:
        return 0.0
    a = struct.unpack("<d", struct.pack("<Q", k << 47))[0]
    b = struct.unpack("<d", struct.pack("<Q", (k + 1) << 47))[0]
    return a + (b - a) / 2


def hist_parse(text, into):
    k = None
    for part in text.split(","):
        g, c = part.split(":")
        k = int(g) if k is None else k + int(g)
        into[k] = into.get(k, 0) + int(c)


def hist_q(h, q, lo, hi):
    n = sum(h.values())
    rank, seen = max(1, -(-q * n // 1)), 0
    for k in sorted(h):
        seen += h[k]
        if seen >= rank:
            return min(max(hist_mid(k), lo), hi)


def points(d):
    import re
    return [(float(x), float(y)) for _, x, y in re.findall(r"([ML])([-\d.]+) ([-\d.]+)", d)]


def columns(host, t0, t1, x0, width):
    """Per pixel column of a host's disk-write summaries: x of its mean time as drawn, its
    p50, p90, p99 and error ratio."""
    cols = {}
    for ts, n, en, hv, lo, hi in q(
            "SELECT s.ts, s.n, s.err_n, v.value, s.dur_min, s.dur_max FROM summary s LEFT JOIN "
            "value v ON v.event_id = s.event_id AND v.name = 'dur.h' WHERE s.event = "
            "'gridftp.disk.write.summary' AND s.host = ? AND s.ts >= ? AND s.ts <= ?",
            host, t0, t1):
        k = min(799, max(0, int((ts - t0) * (800 / (t1 - t0)) // 1)))
        c = cols.setdefault(k, {"ts": [], "h": {}, "lo": float("inf"), "hi": float("-inf"),
                                "en": 0, "ep": 0})
        c["ts"].append(ts)
        if en is not None:
            c["en"] += en
            c["ep"] += n
        if hv:
            hist_parse(hv, c["h"])
            c["lo"] = min(c["lo"], lo if lo is not None else float("inf"))
            c["hi"] = max(c["hi"], hi if hi is not None else float("-inf"))
    out = {}
    for c in cols.values():
        if c["lo"] == float("inf"):
            c["lo"] = float("-inf")
        if c["hi"] == float("-inf"):
            c["hi"] = float("inf")
        x = round(x0 + (sum(c["ts"]) / len(c["ts"]) - t0) / (t1 - t0) * width, 1)
        out[x] = {"p50": hist_q(c["h"], 0.5, c["lo"], c["hi"]) if c["h"] else None,
                  "p90": hist_q(c["h"], 0.9, c["lo"], c["hi"]) if c["h"] else None,
                  "p99": hist_q(c["h"], 0.99, c["lo"], c["hi"]) if c["h"] else None,
                  "errratio": c["en"] / c["ep"] if c["ep"] else None}
    return out


dw = {d["host"]: d for d in durs if d["activity"] == "gridftp.disk.write"}
check(set(dw) == {"gw1", "gw2", "gw3", "gw4"},
      f"a durations strip under every disk-write chart ({sorted(dw)})")
err_max = {}
for host, d in sorted(dw.items()):
    by = {p["cls"]: p for p in d["paths"]}
    check(all(k in by and by[k]["w"] > 10 for k in ("pct p50", "pct p90", "pct p99",
                                                     "errratio")),
          f"{host}: p50, p90, p99 and error-ratio lines laid out ({sorted(by)})")
    want = columns(host, d["t0"], d["t1"], d["x0"], d["width"])
    bad, seen = [], 0
    for cls, key in (("pct p50", "p50"), ("pct p90", "p90"), ("pct p99", "p99"),
                     ("errratio", "errratio")):
        p = by.get(cls)
        if not p:
            continue
        for x, y in points(p["d"]):
            v = (p["y0"] + p["h"] - y) / p["h"] * p["top"]
            w = want.get(round(x, 1), {}).get(key)
            seen += 1
            if w is None or abs(v - w) > p["top"] * 2e-4 + 1e-12:
                bad.append((cls, x, v, w))
            if key == "errratio":
                err_max[host] = max(err_max.get(host, 0), v)
    check(seen > 40 and not bad,
          f"{host}: {seen} drawn points of the percentiles and error ratio match the archive's "
          f"histograms and err.n/n per column ({bad[:3]})")
check(err_max.get("gw3", 0) > 0.05 and all(err_max.get(h, 1) < 1e-9 for h in ("gw1", "gw2", "gw4")),
      f"the slow disk's failed writes show as gw3's error ratio, none on its peers ({err_max})")
errcol = {r["host"]: r.get("errors (%)") for r in rows if r["activity"] == "gridftp.disk.write"}
check(errcol.get("gw3", "—") not in ("—", "0%") and
      all(errcol.get(h) == "0%" for h in ("gw1", "gw2", "gw4")),
      f"the overview's errors (%) column: gw3's failed writes, 0% on its peers ({errcol})")
check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000,
      f"a screenshot: {OUT}/report.png ({len(png)} bytes)")
if failures:
    print(f"{len(failures)} check(s) failed; the page: {page}")
    sys.exit(1)
if os.environ.get("NLKIT_UPDATE_SCREENSHOT") == "1":
    shutil.copyfile(os.path.join(OUT, "report.png"), os.path.join(SRC, "docs", "report.png"))
    print(f"ok: the screenshot is now {SRC}/docs/report.png")
print("ok: the demo's report renders in Chromium as the archive says it should")
