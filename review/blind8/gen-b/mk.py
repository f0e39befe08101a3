"""mk: builds blind8b's files from the student files: the correct file is the
student file with its TODO regions replaced, each wrong file the correct file
with the edits its entry names (each edit must match exactly once)."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
OUT = os.path.join(ROOT, "review", "blind8")


def student(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def sub(text, old, new, what=""):
    n = text.count(old)
    if n != 1:
        sys.exit(f"mk: edit {what!r} matches {n} times, not once: {old[:80]!r}")
    return text.replace(old, new)


def header(prefix, kind, mistake, why, source):
    lines = [f"kind: {kind}", f"mistake: {mistake}", f"why it is wrong: {why}", f"source: {source}"]
    return "".join(f"{prefix} {l}\n" for l in lines)


def write(exercise, name, prefix, head, text):
    d = os.path.join(OUT, exercise)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "w") as f:
        f.write(header(prefix, *head) + text)


def build(exercise, ext, prefix, correct_text, correct_head, wrongs):
    """wrongs: list of (slug, head, [(old, new), ...])."""
    write(exercise, "correct." + ext, prefix, correct_head, correct_text)
    for slug, head, edits in wrongs:
        t = correct_text
        for old, new in edits:
            t = sub(t, old, new, slug)
        write(exercise, f"wrong-{slug}.{ext}", prefix, head, t)
