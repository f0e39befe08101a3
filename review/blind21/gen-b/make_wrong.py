#!/usr/bin/env python3
"""Writes each wrong file of blind21 half B from its exercise's correct file:
the correct file's four header lines are replaced by the wrong file's, and
ONE edit (old -> new, which must match exactly once) is applied to the body."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wrongs import WRONGS

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EXT = {"stream-pools": "cu", "stream-ordered-pool": "h", "ipc-pool": "cu", "graph-alloc": "cu",
       "peer-pool": "cu", "heap-vs-pool": "cu", "python-handoff": "py"}

def main():
    bad = 0
    for w in WRONGS:
        ext = EXT[w["ex"]]
        c = "#" if ext == "py" else "//"
        src = open(os.path.join(ROOT, w["ex"], "correct." + ext)).read().split("\n")
        body = "\n".join(src[4:])
        n = body.count(w["old"])
        if n != 1:
            print(f"{w['ex']}/{w['slug']}: the edit matches {n} times", file=sys.stderr)
            bad += 1
            continue
        body = body.replace(w["old"], w["new"])
        head = [f"{c} kind: wrong ({w['shows']})", f"{c} mistake: {w['mistake']}",
                f"{c} why it is wrong: {w['why']}", f"{c} source: {w['source']}"]
        open(os.path.join(ROOT, w["ex"], f"wrong-{w['slug']}.{ext}"), "w").write("\n".join(head) + "\n" + body)
    sys.exit(1 if bad else 0)

if __name__ == "__main__":
    main()
