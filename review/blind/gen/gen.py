"""gen.py SPEC.py: writes review/blind/<id>/ from one exercise's student file.

SPEC defines ID, SRC (the student file), CORRECT = (header dict, [(old, new)])
and, for a second set of one exercise, DIR (the folder, ID by default),
and WRONGS = [(slug, header dict, [(old, new)])]; a wrong one is the correct
one with its (old, new) edits applied, each old text found exactly once.
"""
import os, runpy, sys

def header(h, mark="//"):
    lines = []
    for key in ("kind", "mistake", "why it is wrong", "source"):
        text = h[key].strip()
        first = True
        for para in text.split("\n"):
            lines.append(("%s %s: %s" % (mark, key, para)) if first else ("%s   %s" % (mark, para)))
            first = False
    return "\n".join(lines) + "\n"

def cell(text):
    return text.replace("\n", " ").replace("|", "\\|")

def apply(src, edits, what):
    for old, new in edits:
        n = src.count(old)
        if n != 1:
            sys.exit("%s: %d matches of %r" % (what, n, old[:120]))
        src = src.replace(old, new)
    return src

spec = runpy.run_path(sys.argv[1])
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
out = os.path.join(root, spec.get("DIR", spec["ID"]))
os.makedirs(out, exist_ok=True)
ext = os.path.splitext(spec["SRC"])[1]
mark = "#" if ext == ".py" else "//"
base = open(spec["SRC"]).read()
chdr, cedits = spec["CORRECT"]
correct = apply(base, cedits, "correct")
open(os.path.join(out, "correct" + ext), "w").write(header(chdr, mark) + correct)
rows = ["# %s: blind submissions%s\n" % (spec["ID"], " (%s)" % spec["DIR"] if "DIR" in spec else ""),
        "Student file: `%s` (each file here replaces it whole)." % spec["SRC"],
        spec.get("NOTE", ""), "",
        "| file | kind | mistake | why it is wrong (for the correct file: why it is right) | source |",
        "| --- | --- | --- | --- | --- |",
        "| correct%s | %s | %s | %s | %s |" % (ext, chdr["kind"], cell(chdr["mistake"]), cell(chdr["why it is wrong"]), chdr["source"])]
for slug, h, edits in spec["WRONGS"]:
    w = apply(correct, edits, slug)
    name = "wrong-%s%s" % (slug, ext)
    open(os.path.join(out, name), "w").write(header(h, mark) + w)
    rows.append("| %s | %s | %s | %s | %s |" % (name, h["kind"], cell(h["mistake"]), cell(h["why it is wrong"]), h["source"]))
open(os.path.join(out, "MANIFEST.md"), "w").write("\n".join(rows) + "\n")
print("wrote", out)
