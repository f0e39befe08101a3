"""Writes review/blind27/MANIFEST-A.md (one line a file) and the two tables
of README-A.md (between its CORRECT TABLE and WRONG TABLE markers) from
the files' four-line headers."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from apply import EXT, ORDER, SET  # noqa: E402

KEYS = ("kind", "mistake", "why it is wrong", "source")


def read_header(p):
    with open(p) as f:
        lines = [f.readline().rstrip("\n") for _ in range(4)]
    out = {}
    for key, line in zip(KEYS, lines):
        prefix = "// %s: " % key
        assert line.startswith(prefix), (p, line)
        out[key] = line[len(prefix):].replace("|", "\\|")
    return out


def files():
    for ex in ORDER:
        d = os.path.join(SET, ex)
        names = sorted(os.listdir(d))
        names = [n for n in names if n.startswith("correct.")] + [n for n in names if n.startswith("wrong-")]
        for n in names:
            yield ex, ex + "/" + n, read_header(os.path.join(d, n))


def main():
    man = ["# blind27, first half (A): one line a file", "", "exercise | file | kind | the mistake | its source"]
    correct = ["| exercise | file | design |", "| --- | --- | --- |"]
    wrong = ["| exercise | file | the mistake | where it shows, and why it is wrong | source |", "| --- | --- | --- | --- | --- |"]
    for ex, rel, h in files():
        man.append("%s | `%s` | %s | %s | %s" % (ex, rel, h["kind"], h["mistake"], h["source"]))
        if h["kind"] == "correct":
            correct.append("| %s | `%s` | %s |" % (ex, rel, h["mistake"][len("none. Design: "):]))
        else:
            wrong.append("| %s | `%s` | %s | %s | %s |" % (ex, rel, h["mistake"], h["why it is wrong"], h["source"]))
    with open(os.path.join(SET, "MANIFEST-A.md"), "w") as f:
        f.write("\n".join(man) + "\n")
    readme = os.path.join(SET, "README-A.md")
    if os.path.exists(readme):
        text = open(readme).read()
        for tag, rows in (("CORRECT TABLE", correct), ("WRONG TABLE", wrong)):
            pat = re.compile(r"(<!-- %s -->\n).*?(<!-- /%s -->)" % (tag, tag), re.S)
            assert pat.search(text), tag
            text = pat.sub(lambda m: m.group(1) + "\n".join(rows) + "\n" + m.group(2), text)
        with open(readme, "w") as f:
            f.write(text)
    print("MANIFEST-A.md: %d files" % (len(man) - 3))


if __name__ == "__main__":
    main()
