# manifest.py: prints the second half's MANIFEST lines from the files'
# headers (kind; mistake; source), one exercise a section.
import os, re
from mk import ROOT
EXS = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]
out = []
for ex in EXS:
    d = os.path.join(ROOT, "review", "blind7", ex)
    out.append("### %s\n" % ex)
    names = sorted(os.listdir(d), key=lambda n: (not n.startswith("correct"), n))
    for n in names:
        if n.startswith("__"): continue
        h = {}
        for line in open(os.path.join(d, n)):
            m = re.match(r"^(?://|#) (kind|mistake|why it is wrong|source): (.*)$", line)
            if not m: break
            h[m.group(1)] = m.group(2)
        out.append("- %s | `%s/%s` | %s | %s | %s" % (ex, ex, n, h["kind"], h["mistake"], h["source"]))
    out.append("")
print("\n".join(out))
