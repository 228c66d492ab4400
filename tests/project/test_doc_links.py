#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test_doc_links.py — every relative link in the tree's Markdown leads somewhere: the file
exists and, for a `#anchor` into a Markdown file, a heading of that file makes that anchor
(as GitHub makes them). Text moves between README.md, docs/*.md and docs/research.md; a
link left pointing at a section that moved is what this catches.

  test_doc_links.py SOURCE_DIR        (--self-test: the anchor rule's own cases first)
"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation but - and _ dropped, spaces
    to hyphens (so "nl-detect --metrics" gives "nl-detect---metrics")."""
    h = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return h.replace(" ", "-")


def anchors(path, cache={}):
    """The anchors a Markdown file's headings make (outside code fences); a repeated
    heading gets -1, -2 ... as on GitHub."""
    if path not in cache:
        seen, out, fence = {}, set(), False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    fence = not fence
                elif not fence and re.match(r"#{1,6} ", line):
                    s = slug(line.lstrip("#"))
                    n = seen.get(s, 0)
                    seen[s] = n + 1
                    out.add(s if n == 0 else "%s-%d" % (s, n))
        cache[path] = out
    return cache[path]


def check(src):
    bad = []
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        for name in files:
            if not name.endswith(".md"):
                continue
            md = os.path.join(root, name)
            with open(md, encoding="utf-8") as f:
                text = f.read()
            text = re.sub(r"```.*?```", "", text, flags=re.S)  # links inside code are examples
            for m in LINK.finditer(text):
                url = m.group(1)
                if re.match(r"[a-z][a-z0-9+.-]*:", url):  # http:, https:, mailto: ...
                    continue
                path, _, anchor = url.partition("#")
                target = os.path.normpath(os.path.join(root, path)) if path else md
                where = "%s:%d" % (os.path.relpath(md, src), text.count("\n", 0, m.start()) + 1)
                if not os.path.exists(target):
                    bad.append("%s: %s: no such file" % (where, url))
                elif anchor and target.endswith(".md") and anchor not in anchors(target):
                    bad.append("%s: %s: no heading makes #%s" % (where, url, anchor))
    return bad


def self_test():
    cases = {
        "In Prometheus and Grafana: `nl-detect --metrics`": "in-prometheus-and-grafana-nl-detect---metrics",
        "bench-throughput, deferred mode: how the caller's cost came down":
            "bench-throughput-deferred-mode-how-the-callers-cost-came-down",
        "bench_pipeline.sh: CPU per stage": "bench_pipelinesh-cpu-per-stage",
        "An episode's life, live": "an-episodes-life-live",
    }
    for h, want in cases.items():
        got = slug(h)
        if got != want:
            print("FAIL: slug(%r) = %r, want %r" % (h, got, want), file=sys.stderr)
            return False
    return True


def main():
    args = sys.argv[1:]
    if args and args[0] == "--self-test":
        if not self_test():
            return 1
        args = args[1:]
    src = args[0] if args else "."
    bad = check(src)
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    if bad:
        return 1
    print("ok: every relative link in the Markdown leads to a file and heading")
    return 0


if __name__ == "__main__":
    sys.exit(main())
