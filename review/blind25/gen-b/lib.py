"""Helpers: build a correct file from the student file by exact replacements,
and a wrong file from the correct file by exact replacements; each file gets
the four-line header. Every replacement must match exactly once."""
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
OUT = os.path.join(ROOT, "review", "blind25")


def sub(text, pairs, what):
    for old, new in pairs:
        n = text.count(old)
        if n != 1:
            raise SystemExit(f"{what}: expected one match, found {n}:\n{old[:200]}")
        text = text.replace(old, new)
    return text


def header(ext, kind, mistake, why, source):
    c = "#" if ext == "py" else "//"
    lines = [f"kind: {kind}", f"mistake: {mistake}", f"why it is wrong: {why}", f"source: {source}"]
    return "".join(f"{c} {l}\n" for l in lines)


def build(ex, student, ext, correct_pairs, design, wrongs):
    """wrongs: list of (slug, where, mistake, why, source, pairs)."""
    base = open(os.path.join(ROOT, student)).read()
    body = sub(base, correct_pairs, f"{ex}/correct")
    d = os.path.join(OUT, ex)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"correct.{ext}"), "w") as f:
        f.write(header(ext, "correct", "none. Design: " + design, "-", "own (written from the student file and the course hints)") + body)
    rows = [(ex, f"correct.{ext}", "correct", "none. Design: " + design, "own")]
    for slug, where, mistake, why, source, pairs in wrongs:
        w = sub(body, pairs, f"{ex}/{slug}")
        with open(os.path.join(d, f"wrong-{slug}.{ext}"), "w") as f:
            f.write(header(ext, f"wrong ({where})", mistake, why, source) + w)
        rows.append((ex, f"wrong-{slug}.{ext}", f"wrong ({where})", mistake, source))
    return rows
