#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_report_life_browser.py — nl-report's lifelines and series, rendered by a real browser.

An archive made by nl-load from hand-written lines, a page made by nl-report, opened in
headless Chromium (nlr_browser.py), and what was laid out checked:
  - a request's lifeline draws its child GUIDs' spans (parent.guid, recursively): each child
    span's row below its parent's, its label indented right of its parent's, and labelled
    with its activity; the events of an unrelated request left out;
  - a GUID whose parent.guid is not in the archive is drawn, its label saying "orphan", and
    the caption counting it;
  - two programs summarizing the same activity on one host are two series on its chart, each
    laid out, each named in the legend in its own line's colour; one process alone is one
    series as before.

  test_report_life_browser.py NL_LOAD NL_REPORT OUT_DIR
Exit 77 (skipped) if chromium or chromedriver is missing, saying so.
"""
import os
import subprocess
import sys
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nlr_browser import Browser, need_browser  # noqa: E402

LOAD, REPORT, OUT = sys.argv[1:4]
need_browser()
os.makedirs(OUT, exist_ok=True)
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


T0 = 1795000000.0


def iso(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


lines = []


def ev(t, event, **f):
    lines.append(f"ts={iso(T0 + t)} event={event} level=Info " +
                 " ".join(f"{k.replace('_', '.')}={v}" for k, v in f.items()))


# a request on fe with a parse step; its child db-1 on be runs a query inside the parse, and
# the query's child io-1 a disk read; an unrelated request req-2; an orphan job
ev(0.0, "request.start", guid="req-1", host="fe", prog="front")
ev(0.1, "parse.start", guid="req-1", host="fe", prog="front")
ev(0.2, "db.query.start", guid="db-1", parent_guid="req-1", host="be", prog="db")
ev(0.25, "request.start", guid="req-2", host="fe", prog="front")
ev(0.3, "disk.read.start", guid="io-1", parent_guid="db-1", host="be", prog="db")
ev(0.4, "disk.read.end", guid="io-1", parent_guid="db-1", host="be", prog="db")
ev(0.45, "request.end", guid="req-2", host="fe", prog="front")
ev(0.5, "db.query.end", guid="db-1", parent_guid="req-1", host="be", prog="db")
ev(0.6, "parse.end", guid="req-1", host="fe", prog="front")
ev(0.9, "request.end", guid="req-1", host="fe", prog="front")
ev(1.0, "job.start", guid="orph-1", parent_guid="gone-9", host="be", prog="db")
ev(2.0, "job.end", guid="orph-1", parent_guid="gone-9", host="be", prog="db")

# two programs on host hs summarize the same activity (alpha at a third of beta's rate); ho
# has one process
for i in range(30):
    ev(i * 0.5, "app.read.summary", host="hs", prog="alpha", pid=7, n=2, dur_sum=0.1, v_sum=100,
       int=0.5)
    ev(i * 0.5 + 0.2, "app.read.summary", host="hs", prog="beta", pid=8, n=2, dur_sum=0.1,
       v_sum=300, int=0.5)
    ev(i * 0.5, "app.read.summary", host="ho", prog="alpha", pid=9, n=2, dur_sum=0.1, v_sum=100,
       int=0.5)

src = os.path.join(OUT, "life.log")
db = os.path.join(OUT, "life.db")
page = os.path.join(OUT, "life.html")
for p in (db, page):
    if os.path.exists(p):
        os.remove(p)
with open(src, "w") as f:
    f.write("\n".join(lines) + "\n")
subprocess.run([LOAD, "-d", db, "--no-progress", src], check=True)
subprocess.run([REPORT, "-d", db, "-o", page, "-g", "req-1", "-g", "orph-1"], check=True)

with Browser(OUT) as b:
    b.open(page)
    lives = b.js("""
        return [...document.querySelectorAll('svg.lifeline')].map(s => ({
          caption: s.closest('figure').querySelector('figcaption').textContent,
          rows: [...s.querySelectorAll('g.span')].map(g => {
            const t = g.querySelector('text.rowname').getBoundingClientRect();
            const bar = g.querySelector('rect.life-bar');
            return {activity: g.dataset.activity, host: g.dataset.host, guid: g.dataset.guid,
                    parent: +g.dataset.parent, depth: +g.dataset.depth,
                    orphan: g.classList.contains('orphan'),
                    label: g.querySelector('text.rowname').textContent,
                    lx: t.left, ly: t.top, lw: t.width,
                    bar: bar ? bar.getBoundingClientRect().width : 0}; }),
          dots: s.querySelectorAll('circle.life-ev').length}));""")
    series = b.js("""
        return [...document.querySelectorAll('svg.chart')].map(s => {
          const fig = s.closest('figure');
          return {activity: s.dataset.activity, host: s.dataset.host,
                  paths: [...s.querySelectorAll('path.series')].map(p => ({
                    prog: p.dataset.prog, pid: p.dataset.pid, label: p.dataset.label,
                    w: p.getBoundingClientRect().width, h: p.getBoundingClientRect().height,
                    stroke: getComputedStyle(p).stroke})),
                  legend: [...fig.querySelectorAll('.legend span.proc')].map(e => ({
                    prog: e.dataset.prog, text: e.textContent,
                    colour: getComputedStyle(e.querySelector('i')).backgroundColor}))}; });""")
    severe = b.severe()

check(not severe, f"no console errors ({severe[:3]})")
check(len(lives) == 2, f"two lifelines drawn ({len(lives)})")
if len(lives) == 2:
    rows = {r["activity"]: r for r in lives[0]["rows"]}
    check(set(rows) == {"request", "parse", "db.query", "disk.read"},
          f"req-1's lifeline: its spans and its children's, not req-2's ({sorted(rows)})")
    check(lives[0]["dots"] == 8, f"every event of req-1 and its children a dot ({lives[0]['dots']})")
    order = [r["activity"] for r in lives[0]["rows"]]
    for child, parent in (("parse", "request"), ("db.query", "parse"), ("disk.read", "db.query")):
        c, p = rows.get(child), rows.get(parent)
        if not c or not p:
            continue
        check(lives[0]["rows"][c["parent"]]["activity"] == parent,
              f"{child} is drawn as a child of {parent}")
        check(c["ly"] > p["ly"] and c["lx"] > p["lx"] + 5,
              f"{child}'s label below and right of {parent}'s on screen "
              f"({c['lx']:.0f},{c['ly']:.0f} against {p['lx']:.0f},{p['ly']:.0f})")
        check(c["label"].startswith(child + " ") and c["lw"] > 10,
              f"{child}'s row labelled with its activity ({c['label']!r})")
        check(c["bar"] > 1, f"{child}'s span drawn as a bar ({c['bar']:.1f} px)")
    check("db.query" in order and "parse" in order and
          order.index("db.query") == order.index("parse") + 1,
          f"the child query right under the parse ({order})")
    check(rows.get("db.query", {}).get("guid") == "db-1" and rows["db.query"]["host"] == "be",
          "the query's row is db-1's on be")
    check("2 child GUIDs" in lives[0]["caption"], f"the caption counts them: {lives[0]['caption']}")
    o = lives[1]["rows"]
    check(len(o) == 1 and o[0]["orphan"] and o[0]["label"] == "job \u00b7 be (orphan)",
          f"the orphan job drawn and labelled so ({o})")
    check("1 orphan: its parent is not in the archive" in lives[1]["caption"],
          f"the orphan's caption says why: {lives[1]['caption']}")
by = {(c["activity"], c["host"]): c for c in series}
hs, ho = by.get(("app.read", "hs")), by.get(("app.read", "ho"))
check(hs is not None and ho is not None, "charts of app.read on hs and ho")
if hs and ho:
    progs = sorted(p["prog"] for p in hs["paths"])
    check(progs == ["alpha", "beta"], f"two programs on hs, two series ({progs})")
    check(all(p["w"] > 100 for p in hs["paths"]), f"each laid out across the chart ({hs['paths']})")
    check(len({p["stroke"] for p in hs["paths"]}) == 2, "in two colours")
    legend = {e["prog"]: e for e in hs["legend"]}
    check(sorted(legend) == ["alpha", "beta"] and all(legend[p]["text"].startswith(p + " (30)")
                                                     for p in legend),
          f"the legend names both, with their values ({hs['legend']})")
    check(all(legend.get(p["prog"], {}).get("colour") == p["stroke"] for p in hs["paths"]),
          "each legend entry in its line's colour")
    check(len(ho["paths"]) == 1 and not ho["paths"][0]["prog"] and not ho["legend"],
          "one process on ho: one series, no legend")
if failures:
    print(f"{len(failures)} check(s) failed; the page: {page}")
    sys.exit(1)
print("ok: lifelines draw child spans under their parents, orphans labelled; processes apart")
