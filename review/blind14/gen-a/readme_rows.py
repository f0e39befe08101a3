#!/usr/bin/env python3
# Rewrites README-A.md's wrong-file table from the files' headers. Run
# from the repository root.
import glob, os
order = ["block-pool", "async-pipeline", "pool-reuse", "cross-stream", "strict-pool", "vmm-growable", "pool-resource"]
rows = []
for ex in order:
    for p in sorted(glob.glob(f"review/blind14/{ex}/wrong-*")):
        h = {}
        for line in open(p).read().split("\n")[:4]:
            k, _, v = line.lstrip("/# ").strip().partition(": ")
            h[k] = v
        rows.append(f"| {ex} | `{os.path.basename(p)}` | {h['mistake']} | {h['why it is wrong']} | {h['source']} |")
path = "review/blind14/README-A.md"
s = open(path).read()
head = "| exercise | file | the mistake | shows | source |\n| --- | --- | --- | --- | --- |\n"
a = s.index(head) + len(head)
b = s.index("\n## What I expect")
open(path, "w").write(s[:a] + "\n".join(rows) + "\n" + s[b:])
