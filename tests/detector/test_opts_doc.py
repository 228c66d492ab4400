#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_opts_doc.py — nl-detect's stream options, as its option table (detector/nld_opts.c)
prints them (nl-detect --help-stream), against the man page's STREAM OPTIONS: every table
option has its entry there (`.IP "name=..."`, or `.TP` then `.B name=...`) and no entry names an option the table lacks;
each entry's "Built-in: X" is the table's value for a stream given algo= alone, and its
"combine=default: Y" (where the page gives one) the preset's; the page's one-line
"combine=default is ..." names exactly the options and values the preset sets. --help names --help-stream.

    test_opts_doc.py NL_DETECT MAN_PAGE
"""
import re
import subprocess
import sys

SELECTOR = {"event", "value", "key", "where.FIELD"}  # the selector's, not the table's


def table(nl_detect):
    """{name: (alone, preset, set by combine=default)} from --help-stream."""
    out = subprocess.run([nl_detect, "--help-stream"], check=True, capture_output=True,
                         text=True).stdout
    rows, started = {}, False
    for line in out.splitlines():
        if line.startswith("OPTION=VALUE"):
            started = True
            continue
        if started and line.strip():
            opt, alone, preset, rest = line.split(None, 3)
            rows[opt.split("=", 1)[0]] = (alone, preset, rest.startswith("* "))
    return rows


def plain(text):
    """Man page text without font escapes: \\fB, \\fI, \\fR, \\fP, \\&, and \\- as -."""
    text = re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-").replace("\\&", "")
    return text.replace('"', "")


def man_entries(path):
    """{name: body} of the STREAM OPTIONS section's `.IP "name=..."` (or `.TP` / `.B name=...`)
    entries."""
    lines = open(path, encoding="utf-8").read().splitlines()
    try:
        start = lines.index(".SH STREAM OPTIONS")
    except ValueError:
        sys.exit(f"FAIL: {path} has no .SH STREAM OPTIONS section")
    entries, name, body = {}, None, []
    i = start + 1
    while i < len(lines) and not lines[i].startswith(".SH"):
        line = lines[i]
        tp = line == ".TP" and i + 1 < len(lines) and lines[i + 1].startswith(".B")
        if tp or line.startswith(".IP "):  # `.TP` / `.B head`, or `.IP "head"`
            if name:
                entries[name] = " ".join(body)
            src = lines[i + 1] if tp else line
            head = plain(src.split(None, 1)[1] if " " in src else "")
            name = head.split("=", 1)[0].strip() if "=" in head else None
            body = []
            i += 2 if tp else 1
            continue
        if line.startswith((".PP", ".SS", ".TP")):
            if name:
                entries[name] = " ".join(body)
            name, body = None, []
        elif name:
            body.append(plain(line))
        i += 1
    if name:
        entries[name] = " ".join(body)
    return entries


def value_after(label, body):
    m = re.search(re.escape(label) + r"\s*(\S+)", body)
    return m.group(1).rstrip(".,;:)") if m else None


def main():
    nl_detect, page = sys.argv[1], sys.argv[2]
    rows, entries = table(nl_detect), man_entries(page)
    bad = []
    helptext = subprocess.run([nl_detect, "--help"], check=True, capture_output=True,
                              text=True).stdout
    if "--help-stream" not in helptext:
        bad.append("nl-detect --help does not name --help-stream")
    for name in rows:
        if name not in entries:
            bad.append(f"{name}=: in the option table, not in {page}'s STREAM OPTIONS "
                       "(an `.IP \"" + name + "=...\"` entry)")
    for name in entries:
        if name not in rows and name not in SELECTOR:
            bad.append(f"{name}=: in {page}'s STREAM OPTIONS, not an option nl-detect takes")
    for name, (alone, preset, _) in rows.items():
        body = entries.get(name)
        if body is None or name in ("combine", "weights", "quorum"):
            continue  # read after the others; their built-in value depends on the mode
        got = value_after("Built-in:", body)
        if got is None:
            bad.append(f"{name}=: the page gives no 'Built-in: VALUE' (the table's: {alone})")
        elif got != alone and got.split("-")[0].strip() not in rows and not (
                alone == "none" and got == "no"):  # "episode.min - 1", "no limit"
            bad.append(f"{name}=: the page says Built-in: {got}, the table {alone}")
        got = value_after("combine=default:", body)
        if got is None and preset != alone:
            bad.append(f"{name}=: the page gives no 'combine=default: VALUE' (the table's: "
                       f"{preset})")
        elif got is not None and got != preset:
            bad.append(f"{name}=: the page says combine=default: {got}, the table {preset}")
    # the preset in one line, as rsync(1) writes "-a equals -rlptgoD": the same options
    text = plain(" ".join(open(page, encoding="utf-8").read().splitlines()))
    m = re.search(r"combine=default is (algo=.*?), each unless given", text)
    if not m:
        bad.append("the page does not spell out 'combine=default is algo=... , each unless "
                   "given'")
    else:
        said = dict(w.split("=", 1) for w in m.group(1).split() if "=" in w)
        want = {n: r[1] for n, r in rows.items() if r[2]}
        for n in sorted(set(said) | set(want)):
            if said.get(n) != want.get(n):
                bad.append(f"'combine=default is ...' says {n}={said.get(n, '(nothing)')}, "
                           f"the table {n}={want.get(n, '(nothing)')}")
    for b in bad:
        print("FAIL:", b, file=sys.stderr)
    if not bad:
        print(f"ok: {len(rows)} stream options, in --help-stream and {page} alike")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
