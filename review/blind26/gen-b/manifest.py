"""Writes review/blind26/MANIFEST-B.md (one line a file) and the two tables of
README-B.md (between its CORRECT TABLE and WRONG TABLE markers) from specs."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import specs  # noqa: E402

OUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]


def cell(s):
    return s.replace("|", "\\|")


def main():
    lines = ["# blind26, second half (B): one line a file", "",
             "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
    correct = ["| exercise | file | design |", "| --- | --- | --- |"]
    wrong = ["| exercise | file | the mistake | where it shows | source |", "| --- | --- | --- | --- | --- |"]
    for ex in ORDER:
        d = specs.EXERCISES.get(ex)
        if d is None:
            continue
        ext = d["ext"]
        cf = f"{ex}/correct.{ext}"
        lines.append(f"{ex} | `{cf}` | correct | none. Design: {cell(d['design'])} | {d['source']}")
        correct.append(f"| {ex} | `{cf}` | {cell(d['design'])} |")
        for w in specs.WRONGS[ex]:
            wf = f"{ex}/wrong-{w['slug']}.{ext}"
            lines.append(f"{ex} | `{wf}` | wrong ({cell(w['shows'])}) | {cell(w['mistake'])} | {cell(w['source'])}")
            wrong.append(f"| {ex} | `{wf}` | {cell(w['mistake'])} | {cell(w['shows'])}; {cell(w['why'])} | {cell(w['source'])} |")
    with open(os.path.join(OUT, "MANIFEST-B.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    readme = os.path.join(OUT, "README-B.md")
    if os.path.exists(readme):
        text = open(readme).read()
        for name, rows in (("CORRECT TABLE", correct), ("WRONG TABLE", wrong)):
            text = re.sub(rf"<!-- {name} -->.*?<!-- /{name} -->",
                          lambda m: f"<!-- {name} -->\n" + "\n".join(rows) + f"\n<!-- /{name} -->",
                          text, flags=re.S)
        with open(readme, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
