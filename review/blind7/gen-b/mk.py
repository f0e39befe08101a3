# mk.py: the helpers the second half's generators share. A file is the
# student file with exact, once-only replacements, a header in front.
import os, sys
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
def read(p): return open(os.path.join(ROOT, p)).read()
def sub(text, old, new, what=""):
    n = text.count(old)
    if n != 1:
        sys.exit("edit %r matches %d times (want 1): %s" % (what or old[:60], n, old[:200]))
    return text.replace(old, new)
def header(c, kind, mistake, why, source):
    lines = [("kind", kind), ("mistake", mistake), ("why it is wrong", why), ("source", source)]
    return "".join("%s %s: %s\n" % (c, k, v) for k, v in lines)
def write(ex, name, text):
    d = os.path.join(ROOT, "review", "blind7", ex)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, name), "w").write(text)
def apply(text, edits):
    for old, new in edits: text = sub(text, old, new)
    return text
