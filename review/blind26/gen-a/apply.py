"""Shared helpers: the four-line header and exact, single-occurrence edits."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)  # review/blind26
EXT = {
    "block-pool": "cu", "async-pipeline": "cu", "pool-reuse": "cu", "cross-stream": "cu",
    "strict-pool": "cu", "vmm-growable": "cu", "pool-resource": "h",
}


def header(kind, mistake, why, source):
    for part in (kind, mistake, why, source):
        assert "\n" not in part, part
    return (f"// kind: {kind}\n// mistake: {mistake}\n// why it is wrong: {why}\n// source: {source}\n")


def body(exercise):
    with open(os.path.join(HERE, "work", f"{exercise}.{EXT[exercise]}")) as f:
        return f.read()


def edit(text, old, new):
    n = text.count(old)
    if n != 1:
        raise SystemExit(f"edit: old text occurs {n} times, not once:\n{old}")
    return text.replace(old, new)


def write(exercise, name, text):
    d = os.path.join(OUT, exercise)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{name}.{EXT[exercise]}"), "w") as f:
        f.write(text)
