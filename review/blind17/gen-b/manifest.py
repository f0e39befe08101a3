#!/usr/bin/env python3
"""Writes MANIFEST-B.md from the four-line headers of every file of half B,
and prints the two tables of README-B.md (correct designs, wrong files).
Run from review/blind17: python3 gen-b/manifest.py"""
import glob, os, re

EXS = ["stream-pools", "stream-ordered-pool", "ipc-pool", "graph-alloc", "peer-pool", "heap-vs-pool", "python-handoff"]

def header(path):
    lines = open(path).read().split("\n")[:4]
    out = {}
    for l in lines:
        l = re.sub(r"^(//|#)\s?", "", l)
        k, _, v = l.partition(": ")
        out[k] = v
    return out

def cell(s):
    return s.replace("|", "\\|")

rows, correct, wrong = [], [], []
for ex in EXS:
    files = sorted(glob.glob(f"{ex}/*.*"), key=lambda p: (not os.path.basename(p).startswith("correct"), p))
    for f in files:
        h = header(f)
        kind = h["kind"]
        rows.append(f"{ex} | `{f}` | {cell(kind)} | {cell(h['mistake'])} | {cell(h['source'])}")
        if kind == "correct":
            correct.append(f"| {ex} | `{os.path.basename(f)}` | {cell(h['mistake'].removeprefix('none. Design: '))} |")
        else:
            where = kind.removeprefix("wrong (").removesuffix(")")
            wrong.append(f"| {ex} | `{os.path.basename(f)}` | {cell(h['mistake'])} | {cell(where)} | {cell(h['source'])} |")

with open("MANIFEST-B.md", "w") as m:
    m.write("# blind17b manifest\n\nexercise | file | kind | the mistake | its source\n--- | --- | --- | --- | ---\n")
    m.write("\n".join(rows) + "\n")
print("| exercise | file | design |\n| --- | --- | --- |")
print("\n".join(correct))
print()
print("| exercise | file | the mistake | shows | source |\n| --- | --- | --- | --- | --- |")
print("\n".join(wrong))
