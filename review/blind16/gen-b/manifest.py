#!/usr/bin/env python3
"""Writes MANIFEST-B.md from the files' headers."""
import os
here = os.path.dirname(os.path.abspath(__file__)); root = os.path.join(here, "..")
order = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]
out = ["# blind16b manifest", "", "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
for ex in order:
    d = os.path.join(root, ex)
    if not os.path.isdir(d): continue
    for f in sorted(os.listdir(d), key=lambda f: (not f.startswith("correct"), f)):
        h = open(os.path.join(d, f)).read().split("\n")[:4]
        val = lambda i: h[i].split(":", 1)[1].strip()
        out.append(f"{ex} | `{ex}/{f}` | {val(0)} | {val(1)} | {val(3)}")
open(os.path.join(root, "MANIFEST-B.md"), "w").write("\n".join(out) + "\n")
