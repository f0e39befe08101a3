#!/usr/bin/env python3
"""manifest.py: writes MANIFEST-A.md and the two tables of README-A.md
(between the markers) from the correct files' headers and wrongs.py.
usage: python3 gen-a/manifest.py  (from review/blind19)"""
import os, importlib.util
HERE = os.path.dirname(os.path.abspath(__file__)); ROOT = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location("wrongs", os.path.join(HERE, "wrongs.py"))
W = importlib.util.module_from_spec(spec); spec.loader.exec_module(W)
EXS = ["block-pool", "async-pipeline", "pool-reuse", "cross-stream", "strict-pool", "vmm-growable", "pool-resource"]
def ext(ex): return ".h" if ex == "pool-resource" else ".cu"
def header(path):
    h = {}
    for line in open(path).read().split("\n")[:4]:
        k, _, v = line[3:].partition(": ")
        h[k] = v
    return h
man = ["# blind19, first half (A): one line a file", "",
       "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
cor = ["| exercise | file | design |", "| --- | --- | --- |"]
wro = ["| exercise | file | the mistake | shows | source |", "| --- | --- | --- | --- | --- |"]
esc = lambda t: t.replace("|", "\\|")
for ex in EXS:
    f = f"correct{ext(ex)}"; h = header(os.path.join(ROOT, ex, f))
    design = h["mistake"].replace("none. Design: ", "")
    man.append(f"{ex} | `{ex}/{f}` | correct | none. Design: {esc(design)} | {h['source']}")
    cor.append(f"| {ex} | `{f}` | {esc(design)} |")
    for w in [w for w in W.WRONGS if w["ex"] == ex]:
        f = f"wrong-{w['slug']}{ext(ex)}"
        assert os.path.exists(os.path.join(ROOT, ex, f)), f
        man.append(f"{ex} | `{ex}/{f}` | wrong ({esc(w['where'])}) | {esc(w['mistake'])} | {esc(w['source'])}")
        wro.append(f"| {ex} | `{f}` | {esc(w['mistake'])} | {esc(w['where'])} | {esc(w['source'])} |")
open(os.path.join(ROOT, "MANIFEST-A.md"), "w").write("\n".join(man) + "\n")
rd = os.path.join(ROOT, "README-A.md")
if os.path.exists(rd):
    t = open(rd).read()
    for name, rows in (("CORRECT", cor), ("WRONG", wro)):
        a, b = f"<!-- {name} TABLE -->", f"<!-- /{name} TABLE -->"
        i, j = t.index(a) + len(a), t.index(b)
        t = t[:i] + "\n" + "\n".join(rows) + "\n" + t[j:]
    open(rd, "w").write(t)
print("ok")
