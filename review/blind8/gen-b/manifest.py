"""Prints MANIFEST-B.md, one line a file of blind8b, from the files' headers."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SET = os.path.dirname(HERE)
ORDER = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]


def head(path):
    out = {}
    with open(path) as f:
        for _ in range(4):
            line = f.readline().rstrip("\n")
            line = line[3:] if line.startswith("// ") else line[2:]
            key, _, value = line.partition(": ")
            out[key] = value
    return out


print("# The eighth blind set, second half (blind8b): one line a file\n")
print("exercise | file | kind | the mistake | source\n")
for ex in ORDER:
    print(f"## {ex}\n")
    names = sorted(os.listdir(os.path.join(SET, ex)), key=lambda n: (not n.startswith("correct"), n))
    for n in names:
        h = head(os.path.join(SET, ex, n))
        print(f"- {ex} | `{ex}/{n}` | {h['kind']} | {h['mistake']} | {h['source']}")
    print()
