#!/usr/bin/env python3
"""tables.py: prints the two tables of README-B.md (the correct designs,
the wrong files) from the files' headers, for pasting into the README."""
import os
here = os.path.dirname(os.path.abspath(__file__))
top = os.path.join(here, "..")
order = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]
def head(ex, f):
    c = "#" if f.endswith(".py") else "//"
    lines = open(os.path.join(top, ex, f)).read().split("\n")[:4]
    return [l[len(c) + 1:].split(":", 1)[1].strip() for l in lines]
print("| exercise | file | design |\n| --- | --- | --- |")
for ex in order:
    f = [f for f in os.listdir(os.path.join(top, ex)) if f.startswith("correct.")][0]
    k, m, w, s = head(ex, f)
    print(f"| {ex} | `{f}` | {m.replace('none. Design: ', '')} |")
print()
print("| exercise | file | the mistake | where it shows | source |\n| --- | --- | --- | --- | --- |")
for ex in order:
    for f in sorted(os.listdir(os.path.join(top, ex))):
        if not f.startswith("wrong-"):
            continue
        k, m, w, s = head(ex, f)
        shows = k[len("wrong ("):-1] if k.startswith("wrong (") else k
        print(f"| {ex} | `{f}` | {m} | {shows} | {s} |")
