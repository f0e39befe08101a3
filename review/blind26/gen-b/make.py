"""Writes review/blind26/<exercise>/correct.<ext> and wrong-<slug>.<ext> (half B).

Each correct file is gen-b/work/<exercise>.<ext> under its four-line header;
each wrong file is the correct body with the edits of specs.WRONGS applied
(every edit's old text must occur exactly once) under its own header, so
`diff correct.* wrong-*` shows the header and the one mistake only."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import specs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)


def header(ext, kind, mistake, why, source):
    c = "#" if ext == "py" else "//"
    lines = [f"kind: {kind}", f"mistake: {mistake}",
             f"why it is wrong: {why}", f"source: {source}"]
    for line in lines:
        assert "\n" not in line, line
    return "".join(f"{c} {line}\n" for line in lines)


def apply(body, edits, name):
    for old, new in edits:
        n = body.count(old)
        if n != 1:
            raise SystemExit(f"{name}: edit's old text occurs {n} times: {old!r}")
        body = body.replace(old, new)
    return body


def main(only=None):
    for ex, d in specs.EXERCISES.items():
        if only and ex not in only:
            continue
        ext = d["ext"]
        body = open(os.path.join(HERE, "work", f"{ex}.{ext}")).read()
        os.makedirs(os.path.join(OUT, ex), exist_ok=True)
        name = "correct.h" if ext == "h" else f"correct.{ext}"
        with open(os.path.join(OUT, ex, name), "w") as f:
            f.write(header(ext, "correct", "none. Design: " + d["design"],
                           "none (the correct file)", d.get("source", "own")))
            f.write(body)
        for w in specs.WRONGS.get(ex, []):
            wb = apply(body, w["edits"], f"{ex}/{w['slug']}")
            with open(os.path.join(OUT, ex, f"wrong-{w['slug']}.{ext}"), "w") as f:
                f.write(header(ext, f"wrong ({w['shows']})", w["mistake"], w["why"], w["source"]))
                f.write(wb)


if __name__ == "__main__":
    main(sys.argv[1:])
