#!/usr/bin/env python3
"""Writes MANIFEST-B.md from the four-line headers of blind21 half B's files,
and fills the two tables of README-B.md (between their marker comments)."""
import os, re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EXS = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]


def header(path):
    lines = open(path).read().split("\n")[:4]
    out = {}
    for l in lines:
        l = re.sub(r"^(//|#) ", "", l)
        k, _, v = l.partition(": ")
        out[k] = v
    return out


def files(ex):
    names = sorted(os.listdir(os.path.join(ROOT, ex)))
    c = [n for n in names if n.startswith("correct.")]
    w = [n for n in names if n.startswith("wrong-")]
    return c + w


def cell(s):
    return s.replace("|", "/")


man = ["# blind21, second half (B): one line a file", "", "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
ctab = ["| exercise | file | design |", "| --- | --- | --- |"]
wtab = ["| exercise | file | the mistake | shows | source |", "| --- | --- | --- | --- | --- |"]
for ex in EXS:
    for n in files(ex):
        h = header(os.path.join(ROOT, ex, n))
        kind = h["kind"]
        man.append(f"{ex} | `{ex}/{n}` | {cell(kind)} | {cell(h['mistake'])} | {cell(h['source'])}")
        if n.startswith("correct."):
            ctab.append(f"| {ex} | `{n}` | {cell(h['mistake'].replace('none. Design: ', ''))} |")
        else:
            shows = kind[len("wrong ("):-1] if kind.startswith("wrong (") else kind
            wtab.append(f"| {ex} | `{n}` | {cell(h['mistake'])} | {cell(shows)} | {cell(h['source'])} |")
open(os.path.join(ROOT, "MANIFEST-B.md"), "w").write("\n".join(man) + "\n")

readme = os.path.join(ROOT, "README-B.md")
if os.path.exists(readme):
    r = open(readme).read()
    r = re.sub(r"<!-- CORRECT TABLE -->.*?<!-- /CORRECT TABLE -->", lambda m: "<!-- CORRECT TABLE -->\n" + "\n".join(ctab) + "\n<!-- /CORRECT TABLE -->", r, flags=re.S)
    r = re.sub(r"<!-- WRONG TABLE -->.*?<!-- /WRONG TABLE -->", lambda m: "<!-- WRONG TABLE -->\n" + "\n".join(wtab) + "\n<!-- /WRONG TABLE -->", r, flags=re.S)
    open(readme, "w").write(r)
