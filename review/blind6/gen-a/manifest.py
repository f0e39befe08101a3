# Writes review/blind6/MANIFEST.md's first half from the headers of the
# files (kind, mistake, source), one line a file. Run from gen-a/.
import os, re

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
EXS = ["block-pool", "async-pipeline", "pool-reuse", "cross-stream", "strict-pool", "vmm-growable", "pool-resource"]
out = ["# The sixth blind set: manifest (issue 36)", "",
       "One line a file: kind; mistake; source. Each file's header has the full text (`kind:`, `mistake:`, `why it is wrong:`, `source:`).", "",
       "## First half (blind6a)", "",
       "Seven exercises; how they were written and chosen is in `README-A.md`. Each line: exercise | file | kind | the mistake | its public source.", ""]
for e in EXS:
    out += ["### " + e, ""]
    for f in sorted(os.listdir(os.path.join(HERE, e)), key=lambda f: (not f.startswith("correct"), f)):
        h = {}
        for line in open(os.path.join(HERE, e, f)):
            m = re.match(r"// (kind|mistake|why it is wrong|source): (.*)", line)
            if not m:
                break
            h[m.group(1)] = m.group(2)
        out.append("- %s | `%s/%s` | %s | %s | %s" % (e, e, f, h["kind"], h["mistake"], h["source"]))
    out.append("")
out += ["## Second half (blind6b)", "",
        "Written by blind6b (graph-alloc, heap-vs-pool, ipc-pool, peer-pool, python-handoff, stream-ordered-pool, stream-pools): see its section of this file.", ""]
with open(os.path.join(HERE, "MANIFEST.md"), "w") as fh:
    fh.write("\n".join(out))
