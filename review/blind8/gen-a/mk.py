"""Helpers for this half's generators: the student file with exact edits.

Each edit must match exactly once; a generator stops and names the edit
that no longer matches when a student file's given code changes.
"""
import os
import textwrap

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
OUT = os.path.join(ROOT, "review", "blind8")


def student(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def edit(text, old, new):
    n = text.count(old)
    if n != 1:
        raise SystemExit("edit matches %d times, not once: %r" % (n, old[:80]))
    return text.replace(old, new)


def header(kind, mistake, why, source, mark="//"):
    out = []
    for key, val in (("kind", kind), ("mistake", mistake), ("why it is wrong", why), ("source", source)):
        body = textwrap.wrap(" ".join(val.split()), 74 - len(key))
        out.append("%s %s: %s" % (mark, key, body[0]))
        out += ["%s     %s" % (mark, b) for b in body[1:]]
    return "\n".join(out) + "\n"


def write(exercise, name, head, text):
    d = os.path.join(OUT, exercise)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "w") as f:
        f.write(head + text)


def wrong(exercise, ext, base, slug, kind, mistake, why, source, edits):
    text = base
    for old, new in edits:
        text = edit(text, old, new)
    write(exercise, "wrong-%s.%s" % (slug, ext), header(kind, mistake, why, source), text)
