"""Writes every file of the half (correct and wrong) from the ex_*.py modules,
then MANIFEST-B.md, and prints the two README tables."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lib import OUT  # noqa: E402

MODULES = ["ex_stream_pools", "ex_stream_ordered_pool", "ex_ipc_pool", "ex_graph_alloc", "ex_peer_pool",
           "ex_heap_vs_pool", "ex_python_handoff"]


def cell(t):
    return t.replace("|", "/").replace("\n", " ")


rows = []
for m in MODULES:
    rows += __import__(m).rows()

lines = ["# blind25 B: one line a file", "",
         "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
for ex, f, kind, mistake, source in rows:
    lines.append(f"{ex} | `{ex}/{f}` | {cell(kind)} | {cell(mistake)} | {cell(source)}")
open(os.path.join(OUT, "MANIFEST-B.md"), "w").write("\n".join(lines) + "\n")

if "--tables" in sys.argv:
    print("| exercise | file | design |\n| --- | --- | --- |")
    for ex, f, kind, mistake, source in rows:
        if kind == "correct":
            print(f"| {ex} | `{ex}/{f}` | {cell(mistake[len('none. Design: '):])} |")
    print()
    print("| exercise | file | the mistake | where it shows | source |\n| --- | --- | --- | --- | --- |")
    for ex, f, kind, mistake, source in rows:
        if kind != "correct":
            where = kind[len("wrong ("):-1]
            print(f"| {ex} | `{f}` | {cell(mistake)} | {cell(where)} | {cell(source)} |")
print(len(rows), "files")
