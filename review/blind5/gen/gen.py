"""Writes one folder of the fifth blind set (issue 36) from a spec module.

A spec module names STUDENT (the student file), DIR (the folder under
review/blind5), EXT, COMMENT ("//" or "#"), CORRECT_HEADER and CORRECT
(edits (old, new) of the student file, each old text found exactly once),
and WRONG: a list of (slug, header, edits of the correct file). A header is
a dict with kind, mistake, why, source. Usage:
  python3 review/blind5/gen/gen.py review/blind5/gen/<spec>.py
"""
import importlib.util, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def edit(text, edits, what):
    for old, new in edits:
        n = text.count(old)
        if n != 1:
            sys.exit(f"{what}: an edit's old text occurs {n} times, not once:\n{old}")
        text = text.replace(old, new)
    return text


def head(c, h):
    out = []
    for key, name in (("kind", "kind"), ("mistake", "mistake"), ("why", "why it is wrong"), ("source", "source")):
        lines = " ".join(h[key].split())
        # wrap at about 76 columns
        words, line, first = lines.split(" "), "", True
        for w in words:
            pre = f"{c} {name}: " if first else f"{c}   "
            if line and len(pre) + len(line) + 1 + len(w) > 78:
                out.append(pre + line)
                first, line = False, w
            else:
                line = (line + " " + w) if line else w
        out.append((f"{c} {name}: " if first else f"{c}   ") + line)
    return "\n".join(out) + "\n"


def main(path):
    spec = importlib.util.spec_from_file_location("spec", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    student = open(os.path.join(ROOT, m.STUDENT)).read()
    correct = edit(student, m.CORRECT, "correct")
    out = os.path.join(ROOT, "review", "blind5", m.DIR)
    os.makedirs(out, exist_ok=True)
    rows = [("correct", m.CORRECT_HEADER)]
    open(os.path.join(out, "correct." + m.EXT), "w").write(head(m.COMMENT, m.CORRECT_HEADER) + correct)
    for slug, h, edits in m.WRONG:
        open(os.path.join(out, f"wrong-{slug}.{m.EXT}"), "w").write(head(m.COMMENT, h) + edit(correct, edits, slug))
        rows.append((f"wrong-{slug}", h))
    one = lambda s: " ".join(s.split())
    with open(os.path.join(out, "MANIFEST.md"), "w") as f:
        f.write(f"# {m.DIR}: fifth blind set (issue 36); replaces `{m.STUDENT}`\n\n")
        f.write("One line a file: kind; mistake; source.\n\n")
        for name, h in rows:
            f.write(f"- `{name}.{m.EXT}`: {one(h['kind'])}. {one(h['mistake'])} Source: {one(h['source'])}\n")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        main(p)
