#!/usr/bin/env python3
"""tables.py: prints the two tables of README-B.md (the correct designs,
the wrong files) from the files' headers, into gen-b/tables.md."""
import os
from manifest import order, files, headers, here

out = ["| exercise | file | design |", "| --- | --- | --- |"]
for ex in order:
    for f in files(ex):
        if f.startswith("correct."):
            kind, mistake, _, _ = headers(ex, f)
            out.append(f"| {ex} | `{f}` | {mistake[len('none. Design: '):]} |")
out += ["", "| exercise | file | the mistake | where it shows | source |", "| --- | --- | --- | --- | --- |"]
for ex in order:
    for f in files(ex):
        if f.startswith("wrong-"):
            kind, mistake, _, source = headers(ex, f)
            shows = kind[len("wrong ("):-1]
            out.append(f"| {ex} | `{f}` | {mistake} | {shows} | {source} |")
open(os.path.join(here, "tables.md"), "w").write("\n".join(out) + "\n")
print(len(out), "lines")
