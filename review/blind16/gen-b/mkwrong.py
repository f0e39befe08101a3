#!/usr/bin/env python3
"""Makes each wrong file of an exercise from its correct file and one edit.
usage: mkwrong.py <exercise>  (reads wrong_<exercise with - as _>.py: WRONG, a list of
(slug, where, mistake, why, source, [(old, new), ...]); each old must be found once)."""
import importlib.util, os, sys
sys.dont_write_bytecode = True
ex = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("w", os.path.join(here, "wrong_" + ex.replace("-", "_") + ".py"))
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
folder = os.path.join(here, "..", ex)
correct = [f for f in os.listdir(folder) if f.startswith("correct.")][0]
ext = correct.split(".", 1)[1]
c = "#" if ext == "py" else "//"
text = open(os.path.join(folder, correct)).read()
body = text.split("\n", 4)[4]  # drop the four header lines
sys.path.insert(0, here)
from sources import SOURCES
for slug, where, mistake, why, source, edits in m.WRONG:
    source = SOURCES.get(slug, source)
    t = body
    for old, new in edits:
        assert t.count(old) == 1, (slug, old, t.count(old))
        t = t.replace(old, new)
    hdr = f"{c} kind: wrong ({where})\n{c} mistake: {mistake}\n{c} why it is wrong: {why}\n{c} source: {source}\n"
    open(os.path.join(folder, f"wrong-{slug}.{ext}"), "w").write(hdr + t)
    print("wrote", ex, slug)
