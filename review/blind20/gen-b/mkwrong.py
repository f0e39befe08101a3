#!/usr/bin/env python3
"""mkwrong.py EXERCISE: writes review/blind20/EXERCISE/wrong-<slug>.<ext>
from the folder's correct file, one edit each, as listed in
gen-b/wrong_<exercise>.py (WRONG: a list of dicts with slug, shows,
mistake, why, source and edits, a list of (old, new) pairs; each old must
occur exactly once in the correct file). The four header lines are
rewritten; the rest of the file differs by the edits only."""
import importlib.util, os, sys

here = os.path.dirname(os.path.abspath(__file__))
ex = sys.argv[1]
spec = importlib.util.spec_from_file_location("w", os.path.join(here, "wrong_" + ex.replace("-", "_") + ".py"))
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
folder = os.path.join(here, "..", ex)
correct = [f for f in os.listdir(folder) if f.startswith("correct.")][0]
ext = correct.split(".", 1)[1]
text = open(os.path.join(folder, correct)).read()
c = "#" if ext == "py" else "//"
lines = text.split("\n")
assert lines[0].startswith(c + " kind:") and lines[3].startswith(c + " source:"), lines[:4]
body = "\n".join(lines[4:])
for w in mod.WRONG:
    out = body
    for old, new in w["edits"]:
        assert out.count(old) == 1, (w["slug"], old, out.count(old))
        out = out.replace(old, new)
    head = [f"{c} kind: wrong ({w['shows']})", f"{c} mistake: {w['mistake']}",
            f"{c} why it is wrong: {w['why']}", f"{c} source: {w['source']}"]
    open(os.path.join(folder, f"wrong-{w['slug']}.{ext}"), "w").write("\n".join(head) + "\n" + out)
    print("wrote", ex, w["slug"])
