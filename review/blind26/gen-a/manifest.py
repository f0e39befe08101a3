"""Writes MANIFEST-A.md (one line a file) and the two tables of README-A.md
(between their markers) from the files' headers."""
import os, re
from apply import OUT, EXT
from designs import DESIGNS
from wrongs import WRONGS


def head(path):
    with open(path) as f:
        lines = [f.readline().rstrip("\n") for _ in range(4)]
    keys = ["kind", "mistake", "why it is wrong", "source"]
    out = {}
    for k, line in zip(keys, lines):
        prefix = f"// {k}: "
        assert line.startswith(prefix), (path, line)
        out[k] = line[len(prefix):]
    return out


rows, correct, wrong = [], [], []
for ex in DESIGNS:
    files = sorted(os.listdir(os.path.join(OUT, ex)), key=lambda n: (not n.startswith("correct"), n))
    for name in files:
        h = head(os.path.join(OUT, ex, name))
        rel = f"`{ex}/{name}`"
        rows.append(f"{ex} | {rel} | {h['kind']} | {h['mistake']} | {h['source']}")
        if h["kind"] == "correct":
            correct.append(f"| {ex} | {rel} | {h['mistake'][len('none. Design: '):]} |")
        else:
            wrong.append(f"| {ex} | {rel} | {h['mistake']} | {h['why it is wrong']} | {h['source']} |")

with open(os.path.join(OUT, "MANIFEST-A.md"), "w") as f:
    f.write("# blind26, first half (A): one line a file\n\n")
    f.write("exercise | file | kind | the mistake | its source\n")
    f.write("\n".join(rows) + "\n")

readme = os.path.join(OUT, "README-A.md")
text = open(readme).read()
ct = "| exercise | file | design |\n| --- | --- | --- |\n" + "\n".join(correct)
wt = "| exercise | file | the mistake | where it shows | source |\n| --- | --- | --- | --- | --- |\n" + "\n".join(wrong)
text = re.sub(r"<!-- CORRECT TABLE -->.*?<!-- /CORRECT TABLE -->", lambda m: "<!-- CORRECT TABLE -->\n" + ct + "\n<!-- /CORRECT TABLE -->", text, flags=re.S)
text = re.sub(r"<!-- WRONG TABLE -->.*?<!-- /WRONG TABLE -->", lambda m: "<!-- WRONG TABLE -->\n" + wt + "\n<!-- /WRONG TABLE -->", text, flags=re.S)
open(readme, "w").write(text)
print(len(rows), "lines")
