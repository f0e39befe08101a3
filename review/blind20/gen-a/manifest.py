#!/usr/bin/env python3
# manifest.py: writes MANIFEST-A.md (one line a file) and the two tables
# of README-A.md (between its CORRECT TABLE and WRONG TABLE markers) from
# the four header lines of every file of blind20's first half.
import os
import re

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
EXS = ["block-pool", "async-pipeline", "pool-reuse", "cross-stream", "strict-pool", "vmm-growable", "pool-resource"]


def header(path):
    lines = open(path).read().split("\n")[:4]
    keys = ["kind: ", "mistake: ", "why it is wrong: ", "source: "]
    out = []
    for line, key in zip(lines, keys):
        assert line.startswith("// " + key), (path, line[:40])
        out.append(line[len("// " + key):].replace("|", "/"))
    return out


rows = []
for ex in EXS:
    files = sorted(os.listdir(os.path.join(root, ex)), key=lambda f: (not f.startswith("correct"), f))
    for f in files:
        kind, mistake, why, source = header(os.path.join(root, ex, f))
        rows.append((ex, f, kind, mistake, why, source))

man = ["# blind20, first half (A): one line a file", "",
       "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
for ex, f, kind, mistake, why, source in rows:
    man.append("%s | `%s/%s` | %s | %s | %s" % (ex, ex, f, kind, mistake, source))
open(os.path.join(root, "MANIFEST-A.md"), "w").write("\n".join(man) + "\n")

correct = ["| exercise | file | design |", "| --- | --- | --- |"]
wrong = ["| exercise | file | the mistake | shows | source |", "| --- | --- | --- | --- | --- |"]
for ex, f, kind, mistake, why, source in rows:
    if kind == "correct":
        correct.append("| %s | `%s` | %s |" % (ex, f, re.sub(r"^none\. Design: ", "", mistake)))
    else:
        shows = re.sub(r"^wrong \((.*)\)$", r"\1", kind)
        wrong.append("| %s | `%s` | %s | %s | %s |" % (ex, f, mistake, shows, source))

readme = os.path.join(root, "README-A.md")
if os.path.exists(readme):
    text = open(readme).read()
    for name, table in (("CORRECT TABLE", correct), ("WRONG TABLE", wrong)):
        text = re.sub(r"(<!-- %s -->\n).*?(<!-- /%s -->)" % (name, name),
                      lambda m: m.group(1) + "\n".join(table) + "\n" + m.group(2), text, flags=re.S)
    open(readme, "w").write(text)
print("%d files in the manifest" % len(rows))
