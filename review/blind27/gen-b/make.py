"""Writes blind27's second half from work/ (each correct file's body),
designs.py and wrongs.py: the 7 correct files, the 28 wrong files and
MANIFEST-B.md. With --tables it also prints README-B.md's two tables.

    python3 review/blind27/gen-b/make.py [--tables]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lib import EXT, EXERCISES, header, apply  # noqa: E402
from designs import DESIGNS, SOURCE  # noqa: E402
from wrongs import WRONGS  # noqa: E402

OUT = os.path.dirname(HERE)


def body(ex):
    with open(os.path.join(HERE, "work", f"{ex}.{EXT[ex]}")) as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    rows = []
    slugs = set()
    for ex in EXERCISES:
        ext = EXT[ex]
        b = body(ex)
        write(os.path.join(OUT, ex, f"correct.{ext}"),
              header(ext, "correct", "none. Design: " + DESIGNS[ex],
                     "it is not: the design this set grades as right", SOURCE) + b)
        rows.append((ex, f"correct.{ext}", "correct", "none. Design: " + DESIGNS[ex], SOURCE))
        mine = [w for w in WRONGS if w["exercise"] == ex]
        assert len(mine) == 4, (ex, len(mine))
        for w in mine:
            assert (ex, w["slug"]) not in slugs
            slugs.add((ex, w["slug"]))
            text = apply(b, w["edits"], f"{ex}/{w['slug']}")
            assert text != b
            name = f"wrong-{w['slug']}.{ext}"
            write(os.path.join(OUT, ex, name),
                  header(ext, f"wrong ({w['shows']})", w["mistake"], w["why"], w["source"]) + text)
            rows.append((ex, name, f"wrong ({w['shows']})", w["mistake"], w["source"]))
    lines = ["# blind27, second half (B): one line a file", "",
             "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
    for ex, name, kind, mistake, source in rows:
        lines.append(f"{ex} | `{ex}/{name}` | {kind} | {mistake} | {source}")
    write(os.path.join(OUT, "MANIFEST-B.md"), "\n".join(lines) + "\n")
    if "--tables" in sys.argv:
        print("<!-- CORRECT TABLE -->")
        print("| exercise | file | design |")
        print("| --- | --- | --- |")
        for ex in EXERCISES:
            print(f"| {ex} | `{ex}/correct.{EXT[ex]}` | {DESIGNS[ex]} |")
        print("<!-- /CORRECT TABLE -->")
        print()
        print("<!-- WRONG TABLE -->")
        print("| exercise | file | the mistake | where it shows | source |")
        print("| --- | --- | --- | --- | --- |")
        for w in WRONGS:
            ex = w["exercise"]
            print(f"| {ex} | `{ex}/wrong-{w['slug']}.{EXT[ex]}` | {w['mistake']} | {w['shows']}; {w['why']} | {w['source']} |")
        print("<!-- /WRONG TABLE -->")
    print(f"wrote {len(rows)} files and MANIFEST-B.md", file=sys.stderr)


if __name__ == "__main__":
    main()
