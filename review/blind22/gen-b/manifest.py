"""manifest.py: writes MANIFEST-B.md (one line a file) and the two tables of
README-B.md (between its CORRECT TABLE and WRONG TABLE markers) from the
four-line headers of the files themselves."""
import glob, os, re

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXS = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]

def header(path):
    lines = open(path).read().split("\n")[:4]
    out = {}
    for l in lines:
        l = re.sub(r"^(//|#) ", "", l)
        k, v = l.split(": ", 1)
        out[k] = v
    return out

def cell(s):
    return s.replace("|", "\\|")

rows, correct, wrong = [], [], []
for ex in EXS:
    files = sorted(glob.glob(os.path.join(root, ex, "*")), key=lambda p: (not os.path.basename(p).startswith("correct"), p))
    for p in files:
        name = os.path.basename(p)
        h = header(p)
        kind = "correct" if h["kind"] == "correct" else h["kind"]
        rows.append(f"{ex} | `{ex}/{name}` | {cell(kind)} | {cell(h['mistake'])} | {cell(h['source'])}")
        if h["kind"] == "correct":
            correct.append(f"| {ex} | `{name}` | {cell(h['mistake'].replace('none. Design: ', ''))} |")
        else:
            shows = h["kind"][len("wrong ("):-1]
            wrong.append(f"| {ex} | `{name}` | {cell(h['mistake'])} | {cell(shows)} | {cell(h['source'])} |")

with open(os.path.join(root, "MANIFEST-B.md"), "w") as f:
    f.write("# blind22, second half (B): one line a file\n\n")
    f.write("exercise | file | kind | the mistake | its source\n")
    f.write("\n".join(rows) + "\n")

readme = os.path.join(root, "README-B.md")
text = open(readme).read()
ct = "<!-- CORRECT TABLE -->\n| exercise | file | design |\n| --- | --- | --- |\n" + "\n".join(correct) + "\n<!-- /CORRECT TABLE -->"
wt = ("<!-- WRONG TABLE -->\n| exercise | file | the mistake | shows | source |\n| --- | --- | --- | --- | --- |\n"
      + "\n".join(wrong) + "\n<!-- /WRONG TABLE -->")
text = re.sub(r"<!-- CORRECT TABLE -->.*?<!-- /CORRECT TABLE -->", lambda m: ct, text, flags=re.S)
text = re.sub(r"<!-- WRONG TABLE -->.*?<!-- /WRONG TABLE -->", lambda m: wt, text, flags=re.S)
open(readme, "w").write(text)
print(len(rows), "files")
