#!/usr/bin/env python3
# Writes this half's lines of MANIFEST-A.md from the files' headers (kind,
# mistake, why, source): one line a file. Run from the repository root.
import glob, os
order = ["block-pool", "async-pipeline", "pool-reuse", "cross-stream", "strict-pool", "vmm-growable", "pool-resource"]
out = ["# The fourteenth blind set, first half (blind14a): manifest (issue 36)", "",
       "One line a file: exercise | file | kind | the mistake | its public source.",
       "Each file's header has the full text (`kind:`, `mistake:`, `why it is",
       "wrong:`, `source:`); how the set was written is in `README-A.md`.", "",
       "## First half (blind14a)", ""]
for ex in order:
    out.append(f"### {ex}")
    out.append("")
    files = sorted(glob.glob(f"review/blind14/{ex}/*"), key=lambda p: (not os.path.basename(p).startswith("correct"), p))
    for p in files:
        h = {}
        for line in open(p).read().split("\n")[:4]:
            line = line.lstrip("/# ").strip()
            k, _, v = line.partition(": ")
            h[k] = v
        kind = h["kind"]
        what = h["why it is wrong"] if kind == "correct" else h["mistake"]
        if kind == "correct":
            what = "none: " + what.removeprefix("not wrong: ")
        else:
            kind = f"wrong ({h['why it is wrong']})"
        out.append(f"- {ex} | `{ex}/{os.path.basename(p)}` | {kind} | {what} | {h['source']}")
    out.append("")
open("review/blind14/MANIFEST-A.md", "w").write("\n".join(out))
