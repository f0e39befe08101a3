# Helpers for the blind6 (first half) specs: each file is the student file
# with exact edits, each matching exactly once.
import os, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def edit(text, old, new, what=""):
    n = text.count(old)
    if n != 1:
        sys.exit("edit %r matches %d times: %s" % (what or old[:60], n, old[:120]))
    return text.replace(old, new)


def header(kind, mistake, why, source):
    lines = ["// kind: " + kind, "// mistake: " + mistake, "// why it is wrong: " + why, "// source: " + source]
    return "\n".join(lines) + "\n"


def write(exercise, name, text):
    d = os.path.join(ROOT, "review", "blind6", exercise)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
