#!/usr/bin/env python3
"""compare.py NOTEBOOK RUN_OUTPUT: for each code cell that builds or runs
CUDA (%%cuda, %%cu, %%writefile, ! lines; a magic under comment lines
too), says how many of the stdout lines the notebook recorded where it
ran (Colab) are in `lessons run`'s output. Timing, warnings and profiler
lines are left out; /content/ (Colab's folder) is dropped."""
import json, re, sys

nb = json.load(open(sys.argv[1]))
run = open(sys.argv[2], errors="replace").read().replace("/content/", "")
skip = re.compile(r"\x1b|remote:|Resolved|Installing|Requirement|Overwriting|Writing|%|Build cuda|^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) |warning|==|^real|^user|^sys|time|Time|ms\b|Copyright|Built on|Cuda compilation|nvcc: NVIDIA|^\s*$|Collecting|Cloning|Building|Created|Stored|Successfully|Running|directory|Out bin|\+-|\|")
cells = found_all = 0
for i, c in enumerate(nb["cells"]):
    if c.get("cell_type") != "code":
        continue
    src = c.get("source", "")
    src = "".join(src) if isinstance(src, list) else src
    body = "\n".join(l for l in src.split("\n") if l.strip() and not l.strip().startswith("#"))
    if not re.match(r"(%%cuda|%%cu\b|%%writefile|!)", body.strip()) or re.match(r"!\s*(pip|git|nvidia-smi|nvcc --version|apt|wget)", body.strip()):
        continue
    want = []
    for o in c.get("outputs", []):
        text = o.get("text") or o.get("data", {}).get("text/plain") or []
        text = "".join(text) if isinstance(text, list) else text
        if o.get("name") == "stderr":
            continue
        for l in text.replace("/content/", "").strip("'").split("\n"):
            if not skip.search(l):
                want.append(l.strip())
    if not want:
        continue
    have = [l for l in want if l in run]
    cells += 1
    found_all += len(have) == len(want)
    print(f"  cell {i+1}: {len(have)} of {len(want)} recorded lines" + ("" if len(have) == len(want) else f"; missing: {[l for l in want if l not in run][:3]}"))
print(f"{sys.argv[1].split('/')[-1]}: {found_all} of {cells} cells give every line they recorded")
