#!/usr/bin/env python3
"""Makes review/blind15/<exercise>/wrong-<slug>.<ext> from the folder's
correct file and one edit, as listed in gen-b/wrong_<exercise>.py
(WRONG: a list of dicts: slug, where, mistake, why, source, edits =
[(old, new), ...], each old found exactly once in the correct file)."""
import glob, importlib.util, os, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)

def main(names):
    for spec_path in sorted(glob.glob(os.path.join(here, "wrong_*.py"))):
        ex = os.path.basename(spec_path)[6:-3].replace("_", "-")
        if names and ex not in names:
            continue
        spec = importlib.util.spec_from_file_location("w", spec_path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        correct = glob.glob(os.path.join(root, ex, "correct.*"))[0]
        ext = correct.rsplit(".", 1)[1]
        c = "#" if ext == "py" else "//"
        text = open(correct).read()
        lines = text.split("\n")
        body = "\n".join(lines[4:])   # the four header lines dropped
        for w in m.WRONG:
            b = body
            for old, new in w["edits"]:
                n = b.count(old)
                if n != 1:
                    sys.exit(f"{ex} {w['slug']}: edit found {n} times: {old[:60]!r}")
                b = b.replace(old, new)
            head = (f"{c} kind: wrong ({w['where']})\n{c} mistake: {w['mistake']}\n"
                    f"{c} why it is wrong: {w['why']}\n{c} source: {w['source']}\n")
            out = os.path.join(root, ex, f"wrong-{w['slug']}.{ext}")
            open(out, "w").write(head + b)
            print("wrote", os.path.relpath(out, root))

if __name__ == "__main__":
    main(sys.argv[1:])
