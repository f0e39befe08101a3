"""Prints this half's MANIFEST section from the files' headers.

Usage: python3 review/blind8/gen-a/manifest.py > review/blind8/MANIFEST-A.md
"""
import os
import re

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ORDER = ["block-pool", "async-pipeline", "pool-reuse", "cross-stream", "strict-pool", "vmm-growable", "pool-resource"]
KEYS = ["kind", "mistake", "why it is wrong", "source"]


def fields(path):
    out, key = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^(//|#) (kind|mistake|why it is wrong|source): (.*)$", line.rstrip("\n"))
            if m:
                key = m.group(2)
                out[key] = m.group(3)
                continue
            m = re.match(r"^(//|#)     (.*)$", line.rstrip("\n"))
            if m and key:
                out[key] += " " + m.group(2)
                continue
            break
    return out


print("# The eighth blind set, first half (blind8a): manifest (issue 36)")
print()
print("One line a file: exercise | file | kind | the mistake | its public source.")
print("Each file's header has the full text (`kind:`, `mistake:`, `why it is")
print("wrong:`, `source:`); how the set was written is in `README-A.md`.")
print()
print("## First half (blind8a)")
for ex in ORDER:
    d = os.path.join(HERE, ex)
    names = sorted(os.listdir(d), key=lambda n: (not n.startswith("correct"), n))
    print()
    print("### " + ex)
    print()
    for n in names:
        h = fields(os.path.join(d, n))
        print("- %s | `%s/%s` | %s | %s | %s" % (ex, ex, n, h["kind"], h["mistake"], h["source"]))
