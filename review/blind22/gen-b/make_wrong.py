"""make_wrong.py: writes every wrong file of blind22 half B from its
exercise's correct file and ONE edit listed in wrongs.py (an edit is one or
more (old, new) replacements that together make one mistake; each old text
must occur exactly once in the correct file). The four-line header is
written from the entry; the correct file's header is dropped."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from wrongs import WRONGS

EXT = {"stream-pools": "cu", "stream-ordered-pool": "h", "ipc-pool": "cu", "graph-alloc": "cu",
       "peer-pool": "cu", "heap-vs-pool": "cu", "python-handoff": "py"}

def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    only = set(sys.argv[1:])
    for w in WRONGS:
        ex = w["exercise"]
        if only and ex not in only:
            continue
        ext = EXT[ex]
        c = "#" if ext == "py" else "//"
        lines = open(os.path.join(root, ex, f"correct.{ext}")).read().split("\n")
        body = "\n".join(lines[4:])   # the correct file's header is four lines
        for old, new in w["edits"]:
            n = body.count(old)
            if n != 1:
                sys.exit(f"{ex}/{w['slug']}: edit found {n} times: {old[:70]!r}")
            body = body.replace(old, new)
        head = [f"kind: wrong ({w['shows']})", f"mistake: {w['mistake']}", f"why it is wrong: {w['why']}",
                f"source: {w['source']}"]
        out = os.path.join(root, ex, f"wrong-{w['slug']}.{ext}")
        with open(out, "w") as f:
            f.write("".join(f"{c} {h}\n" for h in head) + body)
        print("wrote", out)

main()
