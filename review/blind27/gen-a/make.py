"""Writes review/blind27/<exercise>/correct.<ext> and every wrong file of
this half: the header, then the correct body, in a wrong file with its one
mistake's edits made. Run from anywhere: python3 review/blind27/gen-a/make.py"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from apply import EXT, ORDER, body, header, path, replace_once  # noqa: E402
from designs import DESIGN, WHY  # noqa: E402
from wrongs import W  # noqa: E402


def write(p, text):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def main():
    written = 0
    for ex in ORDER:
        text = header("correct", "none. Design: " + DESIGN[ex], WHY, "own") + body(ex)
        write(path(ex, "correct"), text)
        written += 1
    seen = set()
    for w in W:
        ex = w["exercise"]
        name = "wrong-" + w["slug"]
        assert (ex, name) not in seen, name
        seen.add((ex, name))
        text = body(ex)
        for old, new in w["edits"]:
            text = replace_once(text, old, new, ex + "/" + name)
        why = w["shows"] + ": " + w["why"]
        write(path(ex, name), header("wrong", w["mistake"], why, w["source"]) + text)
        written += 1
    # A wrong file no longer in wrongs.py is removed.
    for ex in ORDER:
        d = os.path.dirname(path(ex, "correct"))
        for n in os.listdir(d):
            if n.startswith("wrong-") and (ex, n[: -len(EXT[ex]) - 1]) not in seen:
                os.remove(os.path.join(d, n))
                print("removed %s/%s" % (ex, n))
    counts = {ex: sum(1 for w in W if w["exercise"] == ex) for ex in ORDER}
    for ex, n in counts.items():
        if n != 4:
            print("%s: %d wrong files, not 4" % (ex, n))
    print("%d files written" % written)


if __name__ == "__main__":
    main()
