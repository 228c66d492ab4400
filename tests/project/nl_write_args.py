#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""nl_write_args.py — nl_write's arguments checked against its format where C cannot.

nl_write's format ("n=i v=d name=s") is nlkit's own, so the compiler's printf checking
(format attribute) does not apply: a double for `i` logs garbage, an int for `s` crashes.
This reads C sources, finds every nl_write / nl_writel call whose format is a string
literal, and checks what can be known without a compiler: the number of arguments, and
the type of each argument whose type is plain from its text (a literal, NULL, a cast).

  nl_write_args.py [--self-test] FILE_OR_DIR...
Exit 0 when nothing is wrong, 1 with each mistake as FILE:LINE: message."""
import os
import re
import sys

CALLS = {"nl_write": 2, "nl_writel": 3}  # index of the format argument
CALL_RE = re.compile(r"\b(nl_write|nl_writel)\s*\(")
TYPES = {"s": "const char *", "d": "double", "i": "int", "l": "long long",
         "u": "unsigned long long", "t": "double"}


def call_text(src, start):
    """The text between the call's parentheses (start: just after '('), or None."""
    depth, i, n = 1, start, len(src)
    while i < n:
        c = src[i]
        if c in "\"'":
            q = c
            i += 1
            while i < n and src[i] != q:
                i += 2 if src[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return src[start:i]
        i += 1
    return None


def split_args(text):
    """Top-level comma-separated arguments."""
    args, depth, cur, i = [], 0, [], 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    args.append("".join(cur).strip())
    return args


STR_LIT = re.compile(r'^(\s*"(?:[^"\\]|\\.)*"\s*)+$')


def literal_string(arg):
    """The value of a string literal argument (adjacent literals joined), else None."""
    if not STR_LIT.match(arg):
        return None
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', arg))


def kind_of(arg):
    """What the argument's text says its type is: a TYPES letter group, or None."""
    a = arg.strip()
    while a.startswith("(") and a.endswith(")") and call_text(a, 1) == a[1:-1]:
        a = a[1:-1].strip()
    if STR_LIT.match(a) or a == "NULL":
        return "s"
    if re.match(r"^[-+]?(\d+\.\d*|\.\d+|\d+[eE][-+]?\d+|\d+\.\d*[eE][-+]?\d+)[fFlL]?$", a):
        return "d"
    m = re.match(r"^[-+]?(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)$", a)
    if m:
        suf = m.group(2).lower()
        if "ll" in suf:
            return "u" if "u" in suf else "l"
        return "i"
    m = re.match(r"^\(\s*(const\s+char\s*\*|char\s*\*|double|int|long\s+long|"
                 r"unsigned\s+long\s+long|int64_t|uint64_t)\s*\)", a)
    if m:
        t = re.sub(r"\s+", " ", m.group(1))
        return {"double": "d", "int": "i", "long long": "l", "int64_t": "l",
                "unsigned long long": "u", "uint64_t": "u"}.get(t, "s")
    return None


def strip_comments(src):
    """Comments blanked out (newlines kept, so line numbers stay), strings left alone."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def check_source(path, src):
    """Mistakes in one file's text, as 'path:line: message'."""
    out = []
    src = strip_comments(src)
    for m in CALL_RE.finditer(src):
        line_start = src.rfind("\n", 0, m.start()) + 1
        if src[line_start:m.start()].lstrip().startswith("#"):
            continue  # a macro's definition
        text = call_text(src, m.end())
        if text is None or "__VA_ARGS__" in text:
            continue
        args = split_args(text)
        fi = CALLS[m.group(1)]
        if len(args) <= fi:
            continue
        fmt = literal_string(args[fi])
        if fmt is None:
            continue  # a format made at run time: not checkable here
        where = "%s:%d" % (path, src.count("\n", 0, m.start()) + 1)
        fields = [w.split("=", 1) for w in fmt.split()]
        if any(len(f) != 2 or len(f[1]) != 1 or f[1] not in TYPES for f in fields):
            out.append("%s: %s: format %r: each word must be NAME=TYPE, TYPE one of sdilut"
                       % (where, m.group(1), fmt))
            continue
        vals = args[fi + 1:]
        if len(vals) != len(fields):
            out.append("%s: %s: format %r declares %d field(s), %d argument(s) follow"
                       % (where, m.group(1), fmt, len(fields), len(vals)))
            continue
        for (name, t), v in zip(fields, vals):
            k = kind_of(v)
            if k is None:
                continue
            ok = k == t or (k == "d" and t == "t")
            if not ok:
                out.append("%s: %s: field %s=%s takes %s, given '%s' (%s)"
                           % (where, m.group(1), name, t, TYPES[t], v.strip(), TYPES[k]))
    return out


SELF_TEST = [  # (source, mistakes expected)
    ('nl_write(log, "e", "n=i v=d name=s", 1, 2.5, "x");', 0),
    ('nl_write(log, "e", "n=i", 2.5);', 1),          # a double for i: garbage
    ('nl_write(log, "e", "name=s", 3);', 1),         # an int for s: a crash
    ('nl_write(log, "e", "v=d", 3);', 1),            # an int for d: the next argument
    ('nl_write(log, "e", "n=l", 3);', 1),            # an int for l (long long)
    ('nl_write(log, "e", "n=l u=u", 3LL, 4ULL);', 0),
    ('nl_write(log, "e", "n=i v=d", 1);', 1),        # an argument short
    ('nl_write(log, "e", "n=x", 1);', 1),            # no such type
    ('nl_write(log, "e", "at=t v=d", (double)now, (double)n);', 0),
    ('nl_write(log, "e", "n=i", (double)k);', 1),
    ('nl_write(log, "e", "name=s", NULL);', 0),
    ('nl_write(log, "e", fmt, 2.5);', 0),            # a run-time format: not checked
    ('nl_writel(log, NL_LVL_WARN, "e", "n=i s=s", f(a, b), "x, y");', 0),
    ('nl_write(log, "e", "a=i "\n "b=s", 1, 2);', 1),
    ('#define W(...) nl_write(log, "e", "n=i", __VA_ARGS__)', 0),
    ('nl_write(log, "e", NULL);', 0),
    ('/* nl_write(log, "e", "n=i", 2.5) */ x = 1; // nl_write(log, "e", "n=s", 1)', 0),
]


def self_test():
    bad = 0
    for src, want in SELF_TEST:
        got = check_source("self", src)
        if len(got) != want:
            bad += 1
            print("self-test: %r: %d mistake(s) expected, found %r" % (src, want, got))
    return bad


def main(argv):
    rc = 0
    paths = [a for a in argv if a != "--self-test"]
    if "--self-test" in argv and self_test():
        rc = 1
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs[:] = [d for d in dirs if not d.startswith(("build", "."))]
                files += [os.path.join(root, n) for n in names if n.endswith((".c", ".h"))]
        else:
            files.append(p)
    for f in sorted(files):
        with open(f, encoding="utf-8", errors="replace") as fh:
            for msg in check_source(f, fh.read()):
                print(msg)
                rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
