#!/usr/bin/env python3
"""Runs a notebook's code cells in order as Colab does, without Jupyter:
%%bash cells by bash (a failure stops), %%writefile cells write their
file, ! lines by sh; comment lines are read past. NAME=FILE arguments
replace the contents of the %%writefile cell of NAME (a student's edit).
Prints each cell's number and output."""
import json, os, subprocess, sys

nb = json.load(open(sys.argv[1]))
edits = {}
for a in sys.argv[2:]:
    name, f = a.split("=", 1)
    edits[name] = open(f).read()
for i, c in enumerate(nb["cells"], 1):
    if c["cell_type"] != "code":
        continue
    src = "".join(c["source"])
    first, _, rest = src.partition("\n")
    print(f"[{i}]", flush=True)
    if first == "%%bash":
        r = subprocess.run(["bash", "-c", rest])
        if r.returncode != 0:
            print(f"cell {i} (%%bash) failed: exit {r.returncode}")
            sys.exit(1)
    elif first.startswith("%%writefile "):
        name = first[len("%%writefile "):].strip()
        text = edits.get(os.path.basename(name), rest + "\n")
        open(name, "w").write(text)
        print("Writing", name)
    else:
        for line in src.split("\n"):
            line = line.strip()
            if line.startswith("!"):
                r = subprocess.run(["sh", "-c", line[1:]])
                if r.returncode:
                    print(f"(exit status {r.returncode})", flush=True)
            elif line and not line.startswith("#"):
                print(f"cell {i} is Python: not run here")
                break
