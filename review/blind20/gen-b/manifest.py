#!/usr/bin/env python3
"""manifest.py: writes review/blind20/MANIFEST-B.md, one line a file of
this half, from the four header lines of each file."""
import os
here = os.path.dirname(os.path.abspath(__file__))
top = os.path.join(here, "..")
order = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]


def headers(ex, f):
    lines = open(os.path.join(top, ex, f)).read().split("\n")[:4]
    c = "#" if f.endswith(".py") else "//"
    get = lambda i, key: lines[i][len(c) + 1 + len(key):].strip()
    return get(0, "kind:"), get(1, "mistake:"), get(2, "why it is wrong:"), get(3, "source:")


def files(ex):
    fs = sorted(os.listdir(os.path.join(top, ex)), key=lambda f: (not f.startswith("correct"), f))
    return [f for f in fs if f.startswith(("correct.", "wrong-"))]


if __name__ == "__main__":
    rows = []
    for ex in order:
        for f in files(ex):
            kind, mistake, _, source = headers(ex, f)
            rows.append(f"{ex} | `{ex}/{f}` | {kind} | {mistake} | {source}")
    out = ["# blind20, second half (B): one line a file", "",
           "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"] + rows
    open(os.path.join(top, "MANIFEST-B.md"), "w").write("\n".join(out) + "\n")
    print(len(rows), "lines")
