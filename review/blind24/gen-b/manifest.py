#!/usr/bin/env python3
"""Writes MANIFEST-B.md from the four-line headers of blind24 B's files, and
fills the two tables of README-B.md (between their marker comments)."""
import glob
import os
import re

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]


def header(path):
    lines = open(path).read().split("\n")[:4]
    out = {}
    for l in lines:
        l = re.sub(r"^(//|#) ", "", l)
        k, _, v = l.partition(": ")
        out[k] = v
    return out


def cell(s):
    return s.replace("|", "/")


rows = []
for ex in ORDER:
    files = sorted(glob.glob(os.path.join(HERE, ex, "correct.*"))) + sorted(glob.glob(os.path.join(HERE, ex, "wrong-*")))
    for f in files:
        rows.append((ex, os.path.basename(f), header(f)))

man = ["# blind24 B: one line a file", "", "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
for ex, name, h in rows:
    man.append(f"{ex} | `{ex}/{name}` | {cell(h['kind'])} | {cell(h['mistake'])} | {cell(h['source'])}")
open(os.path.join(HERE, "MANIFEST-B.md"), "w").write("\n".join(man) + "\n")

correct = ["| exercise | file | design |", "| --- | --- | --- |"]
wrong = ["| exercise | file | the mistake | where it shows | source |", "| --- | --- | --- | --- | --- |"]
for ex, name, h in rows:
    if name.startswith("correct."):
        correct.append(f"| {ex} | `{ex}/{name}` | {cell(h['mistake'].replace('none. Design: ', ''))} |")
    else:
        where = h["kind"][len("wrong ("):-1]
        wrong.append(f"| {ex} | `{name}` | {cell(h['mistake'])} | {cell(where)} | {cell(h['source'])} |")

readme = os.path.join(HERE, "README-B.md")
if os.path.exists(readme):
    t = open(readme).read()
    t = re.sub(r"<!-- CORRECT TABLE -->.*?<!-- /CORRECT TABLE -->",
               lambda m: "<!-- CORRECT TABLE -->\n" + "\n".join(correct) + "\n<!-- /CORRECT TABLE -->", t, flags=re.S)
    t = re.sub(r"<!-- WRONG TABLE -->.*?<!-- /WRONG TABLE -->",
               lambda m: "<!-- WRONG TABLE -->\n" + "\n".join(wrong) + "\n<!-- /WRONG TABLE -->", t, flags=re.S)
    open(readme, "w").write(t)
print(len(rows), "files")
