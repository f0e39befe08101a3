#!/usr/bin/env python3
"""Writes every wrong file of blind24 B from its exercise's correct file and
the edits in wrongs.py: the header's four lines are replaced, then each
edit's old text (which must occur exactly once) is replaced by its new text."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wrongs import WRONGS  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXT = {"stream-pools": "cu", "stream-ordered-pool": "h", "ipc-pool": "cu", "graph-alloc": "cu",
       "peer-pool": "cu", "heap-vs-pool": "cu", "python-handoff": "py"}


def main():
    only = sys.argv[1:]
    for w in WRONGS:
        ex = w["ex"]
        if only and ex not in only:
            continue
        ext = EXT[ex]
        text = open(os.path.join(HERE, ex, "correct." + ext)).read()
        lines = text.split("\n")
        c = "#" if ext == "py" else "//"
        lines[0:4] = [f"{c} kind: wrong ({w['where']})", f"{c} mistake: {w['mistake']}",
                      f"{c} why it is wrong: {w['why']}", f"{c} source: {w['source']}"]
        text = "\n".join(lines)
        for old, new in w["edits"]:
            n = text.count(old)
            if n != 1:
                sys.exit(f"{ex}/{w['slug']}: edit text found {n} times: {old[:60]!r}")
            text = text.replace(old, new)
        out = os.path.join(HERE, ex, f"wrong-{w['slug']}.{ext}")
        open(out, "w").write(text)
        print("wrote", os.path.relpath(out, HERE))


if __name__ == "__main__":
    main()
