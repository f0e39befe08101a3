#!/usr/bin/env python3
"""readme_tables.py: rebuilds the two tables of README-A.md (correct designs,
wrong files) from the four-line headers of the files of blind16a."""
import os
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
order = ["block-pool", "async-pipeline", "pool-reuse", "cross-stream", "strict-pool", "vmm-growable", "pool-resource"]
def hdr(p):
    h = {}
    for line in open(p).read().split("\n")[:4]:
        k, v = line.lstrip("/# ").split(": ", 1)
        h[k] = v.replace("|", "/")
    return h
corr, wrong = [], []
for ex in order:
    for f in sorted(os.listdir(os.path.join(top, ex))):
        h = hdr(os.path.join(top, ex, f))
        if f.startswith("correct"):
            corr.append("| %s | `%s` | %s |" % (ex, f, h["mistake"].replace("none. Design: ", "")))
        else:
            wrong.append("| %s | `%s` | %s | %s | %s |" % (ex, f, h["mistake"], h["kind"][len("wrong ("):-1], h["source"]))
p = os.path.join(top, "README-A.md")
t = open(p).read()
a = t.index("| exercise | file | design |"); b = t.index("## The wrong files")
t = t[:a] + "| exercise | file | design |\n| --- | --- | --- |\n" + "\n".join(corr) + "\n\n" + t[b:]
a = t.index("| exercise | file | the mistake | shows | source |"); b = t.index("## What I expect when graded")
t = t[:a] + "| exercise | file | the mistake | shows | source |\n| --- | --- | --- | --- | --- |\n" + "\n".join(wrong) + "\n\n" + t[b:]
open(p, "w").write(t)
