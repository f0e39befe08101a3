"""manifest.py: writes ../MANIFEST-B.md from the four-line headers of this
half's files, and prints the two README tables (correct designs, wrong files)."""
import glob, os, re
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
exercises = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]
def header(path):
    L = open(path).read().split("\n")[:4]
    out = {}
    for line in L:
        line = re.sub(r"^(//|#) ", "", line)
        k, _, v = line.partition(": ")
        out[k] = v.replace("|", "/")
    return out
manifest = ["# blind18, second half (B): one line a file", "", "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
designs = ["| exercise | file | design |", "| --- | --- | --- |"]
wrongs = ["| exercise | file | the mistake | shows | source |", "| --- | --- | --- | --- | --- |"]
for ex in exercises:
    files = sorted(glob.glob(os.path.join(root, ex, "*")), key=lambda p: (not os.path.basename(p).startswith("correct"), p))
    for f in files:
        if not os.path.isfile(f) or f.endswith(".pyc"):
            continue
        h = header(f)
        name = os.path.basename(f)
        manifest.append(f"{ex} | `{ex}/{name}` | {h['kind']} | {h['mistake']} | {h['source']}")
        if h["kind"] == "correct":
            designs.append(f"| {ex} | `{name}` | {h['mistake'].removeprefix('none. Design: ')} |")
        else:
            shows = h["kind"].removeprefix("wrong (").removesuffix(")")
            wrongs.append(f"| {ex} | `{name}` | {h['mistake']} | {shows} | {h['source']} |")
open(os.path.join(root, "MANIFEST-B.md"), "w").write("\n".join(manifest) + "\n")
print("\n".join(designs))
print()
print("\n".join(wrongs))
