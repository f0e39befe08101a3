#!/usr/bin/env python3
"""Writes review/blind15/MANIFEST-B.md from the four-line headers of this
half's files: exercise | file | kind | the mistake | its source."""
import glob, os

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
EXERCISES = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]

def header(path):
    lines = open(path).read().split("\n")[:4]
    out = {}
    for l in lines:
        l = l.lstrip("/# ").rstrip()
        k, _, v = l.partition(": ")
        out[k] = v
    return out

rows = ["# blind15, second half (blind15b): one line a file", "",
        "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
for ex in EXERCISES:
    files = sorted(glob.glob(os.path.join(root, ex, "*.*")), key=lambda p: (not os.path.basename(p).startswith("correct"), p))
    for f in files:
        h = header(f)
        rel = os.path.relpath(f, root)
        rows.append(f"{ex} | `{rel}` | {h['kind']} | {h['mistake'].replace('|', '/')} | {h['source']}")
open(os.path.join(root, "MANIFEST-B.md"), "w").write("\n".join(rows) + "\n")
print(len(rows) - 4, "files")
