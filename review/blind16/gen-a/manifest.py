#!/usr/bin/env python3
"""manifest.py: writes MANIFEST-A.md from the four-line headers of the files
of blind16a: exercise | file | kind | the mistake | its source."""
import os
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
order = ["block-pool", "async-pipeline", "pool-reuse", "cross-stream", "strict-pool", "vmm-growable", "pool-resource"]
out = ["# blind16a: one line a file", "", "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
for ex in order:
    files = sorted(os.listdir(os.path.join(top, ex)), key=lambda f: (not f.startswith("correct"), f))
    for f in files:
        h = {}
        for line in open(os.path.join(top, ex, f)).read().split("\n")[:4]:
            k, v = line.lstrip("/# ").split(": ", 1)
            h[k] = v
        out.append(" | ".join([ex, "`%s/%s`" % (ex, f), h["kind"].replace("|", "/"), h["mistake"].replace("|", "/"), h["source"].replace("|", "/")]))
open(os.path.join(top, "MANIFEST-A.md"), "w").write("\n".join(out) + "\n")
print(len(out) - 4, "files")
