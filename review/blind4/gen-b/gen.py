"""Writes one blind4 (part B) exercise folder from its spec module.

A spec module defines STUDENT (the student file's path), DIR (the folder
under review/blind4), EXT, COMMENT (the comment prefix), CORRECT_HEADER,
CORRECT (a list of (old, new) edits of the student file) and WRONG (a
list of (slug, header dict, edits of the correct file)). Each edit's old
text must occur exactly once. Usage: python3 review/blind4/gen-b/gen.py review/blind4/gen-b/<spec>.py
"""
import importlib.util, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

def apply(text, edits, what):
    for old, new in edits:
        n = text.count(old)
        if n != 1:
            sys.exit(f"{what}: edit expected once, found {n} times:\n{old}")
        text = text.replace(old, new)
    return text

def header(c, h):
    out = []
    for key in ("kind", "mistake", "why it is wrong", "source"):
        lines = h[key].strip().split("\n")
        out.append(f"{c} {key}: {lines[0]}")
        out += [f"{c}   {l}" for l in lines[1:]]
    return "\n".join(out) + "\n"

def main(path):
    spec = importlib.util.spec_from_file_location("spec", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    student = open(os.path.join(ROOT, m.STUDENT)).read()
    correct = apply(student, m.CORRECT, "correct")
    out = os.path.join(ROOT, "review", "blind4", m.DIR)
    os.makedirs(out, exist_ok=True)
    rows = [("correct", m.CORRECT_HEADER)]
    open(os.path.join(out, "correct." + m.EXT), "w").write(header(m.COMMENT, m.CORRECT_HEADER) + correct)
    for slug, h, edits in m.WRONG:
        w = apply(correct, edits, slug)
        open(os.path.join(out, f"wrong-{slug}.{m.EXT}"), "w").write(header(m.COMMENT, h) + w)
        rows.append((f"wrong-{slug}", h))
    with open(os.path.join(out, "MANIFEST.md"), "w") as f:
        f.write(f"# {m.DIR} (blind set 4, part B; the student file is `{m.STUDENT}`)\n\n")
        f.write("| file | kind | mistake | source |\n|---|---|---|---|\n")
        for name, h in rows:
            cell = lambda s: " ".join(s.split()).replace("|", "\\|")
            f.write(f"| {name}.{m.EXT} | {cell(h['kind'])} | {cell(h['mistake'])} | {cell(h['source'])} |\n")

if __name__ == "__main__":
    main(sys.argv[1])
