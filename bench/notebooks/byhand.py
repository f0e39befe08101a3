#!/usr/bin/env python3
"""A notebook's cells run by hand, without lessons and without Jupyter,
and compared cell by cell with what `lessons run` printed for them.

    byhand.py run NOTEBOOK WORKSPACE > byhand.json
    byhand.py compare LESSONS_RUN.txt byhand.json

`run` does what a person pasting each cell into a terminal or a Python
prompt would: %%writefile (and -a) writes the file, %%bash / %%sh /
%%script bash feed the cell to bash, each ! line runs in its own shell,
%%cuda writes the cell, builds it with nvcc and runs it, and any other
code cell is Python, run in one namespace (its ! lines through the shell,
its % magics skipped). Every code cell gets a status (ok, failed,
skipped) and its output.

`compare` reads `lessons run --keep-going` output (labels "[N] ...",
status lines "✓", "✗", "–") and prints, for each code cell in order, the
two statuses and whether the outputs agree once times, addresses and
numbers that change from run to run are masked.
"""
import contextlib
import io
import json
import os
import re
import subprocess
import sys


def source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def sh(cmd, ws, timeout=120):
    try:
        p = subprocess.run(["bash", "-c", cmd], cwd=ws, capture_output=True, text=True, timeout=timeout)
        return p.returncode == 0, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        return False, (e.stdout or "") + "\ntimed out"


def run_cell(src, ws, ns):
    first, _, rest = src.partition("\n")
    first = first.strip()
    m = re.match(r"^%%(?:writefile|file)((?:\s+-{1,2}a(?:ppend)?)*)\s+(\S.*)$", first)
    if m:
        name = os.path.join(ws, m.group(2).strip("'\""))
        os.makedirs(os.path.dirname(name) or ws, exist_ok=True)
        with open(name, "a" if m.group(1).strip() else "w") as f:
            f.write(rest if rest.endswith("\n") or not rest else rest + "\n")
        return "ok", "wrote " + m.group(2)
    if first in ("%%bash", "%%sh", "%%shell", "%%script bash", "%%script sh"):
        ok, out = sh(rest, ws)
        return ("ok" if ok else "failed"), out
    g = re.search(r"(?:-g|--group)\s+(\S+)", first)
    n = re.search(r"(?:-n|--name)\s+(\S+)", first)
    gdir = lambda name: os.path.join(ws, "byhand-groups", name.strip("'\""))
    if first.startswith("%%cuda_group_save") and g and n:
        os.makedirs(gdir(g.group(1)), exist_ok=True)
        with open(os.path.join(gdir(g.group(1)), n.group(1).strip("'\"")), "w") as f:
            f.write(rest)
        return "ok", ""
    if first.startswith("%%cuda_group_delete") and g:
        subprocess.run(["rm", "-rf", gdir(g.group(1))])
        return "ok", ""
    if first.startswith("%%cuda_group_run") and g:
        d, shared = gdir(g.group(1)), gdir("shared")
        srcs = [os.path.join(x, f) for x in (d, shared) if os.path.isdir(x) for f in sorted(os.listdir(x)) if f.endswith((".cu", ".cpp", ".cc", ".c"))]
        ok, out = sh(f"nvcc -I{shared} -I{d} {' '.join(srcs)} -o {d}/a.out && {d}/a.out", ws)
        return ("ok" if ok else "failed"), out
    if first.startswith("%%cuda") and not first.startswith("%%cuda_group"):
        d = os.path.join(ws, "byhand-cuda")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "single.cu"), "w") as f:
            f.write(rest)
        args = re.search(r"--compiler-args\s+(\"[^\"]*\"|'[^']*'|\S+)", first)
        flags = args.group(1).strip("'\"") if args else ""
        shared = os.path.join(ws, "byhand-groups", "shared")
        more = " ".join(os.path.join(shared, f) for f in sorted(os.listdir(shared)) if f.endswith((".cu", ".cpp"))) if os.path.isdir(shared) else ""
        ok, out = sh(f"nvcc {flags} -I{shared} byhand-cuda/single.cu {more} -o byhand-cuda/a.out && ./byhand-cuda/a.out", ws)
        return ("ok" if ok else "failed"), out
    if first.startswith("%%") or first.startswith("%load_ext") or first.startswith("%pip") or re.match(r"^!\s*pip3? install", first):
        return "skipped", ""
    lines = src.split("\n")
    if all(l.strip() == "" or l.lstrip().startswith(("!", "#")) for l in lines):
        ok_all, outs = True, []
        for l in lines:
            l = l.strip()
            if l.startswith("!"):
                ok, out = sh(l[1:], ws)
                ok_all = ok_all and ok
                outs.append(out)
        return ("ok" if ok_all else "failed"), "".join(outs)
    # Python: ! lines through the shell, % magics left out
    py = []
    for l in lines:
        s = l.lstrip()
        ind = l[: len(l) - len(s)]
        if s.startswith("!"):
            py.append(f"{ind}__byhand_sh({s[1:]!r})")
        elif s.startswith("%"):
            py.append(f"{ind}pass")
        else:
            py.append(l)
    buf = io.StringIO()
    ns["__byhand_sh"] = lambda c: print(sh(c, ws)[1], end="")
    cwd = os.getcwd()
    try:
        os.chdir(ws)
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            code = compile("\n".join(py), "<cell>", "exec")
            exec(code, ns)
        return "ok", buf.getvalue()
    except BaseException as e:  # a cell's SystemExit too
        return "failed", buf.getvalue() + f"{type(e).__name__}: {e}"
    finally:
        os.chdir(cwd)


def cmd_run(nb_path, ws):
    nb = json.load(open(nb_path))
    os.makedirs(ws, exist_ok=True)
    ns = {"__name__": "__main__"}
    cells = []
    for c in nb.get("cells", []):
        if c.get("cell_type") != "code" or not source(c).strip():
            continue
        status, out = run_cell(source(c), ws, ns)
        cells.append({"status": status, "output": out[-4000:], "first": source(c).split("\n")[0][:80]})
    json.dump({"notebook": nb_path, "cells": cells}, sys.stdout, indent=1)


MASK = [
    (re.compile(r"\x1b\[[0-9;]*m"), ""),
    (re.compile(r"0x[0-9a-fA-F]+"), "0x…"),
    (re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?\s*(ms|us|µs|ns|s|sec|seconds|GB/s|MB/s)\b"), "T"),
    (re.compile(r"\d+\.\d+"), "F"),
]


def norm(s):
    s = "\n".join(l for l in s.splitlines() if not l.startswith("(") and not l.startswith("wrote ") and not l.startswith("Writing ") and not l.startswith("Overwriting "))
    for rx, to in MASK:
        s = rx.sub(to, s)
    return " ".join(s.split())


def lessons_cells(text):
    cells, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^\[(\d+|-)\] (.*)$", line)
        if m:
            cur = {"label": m.group(2), "out": [], "status": None}
            cells.append(cur)
            continue
        if cur is None or cur["status"]:
            continue
        if line.startswith("✓"):
            cur["status"] = "ok"
        elif line.startswith("✗"):
            cur["status"] = "failed"
        elif line.startswith("–"):
            cur["status"] = "not run" if "not run" in line else "skipped"
        else:
            cur["out"].append(line)
    return cells


def cmd_compare(lessons_txt, byhand_json):
    mine = lessons_cells(open(lessons_txt, errors="replace").read())
    hand = json.load(open(byhand_json))["cells"]
    same_status = same_out = 0
    print(f"{'cell':>4}  {'lessons':<8} {'by hand':<8} output  first line")
    for i in range(max(len(mine), len(hand))):
        a = mine[i] if i < len(mine) else {"status": "absent", "out": [], "label": ""}
        b = hand[i] if i < len(hand) else {"status": "absent", "output": "", "first": ""}
        st = a["status"] or "absent"
        eq_status = st == b["status"]
        eq_out = norm("\n".join(a["out"])) == norm(b["output"])
        same_status += eq_status
        same_out += eq_out
        print(f"{i + 1:>4}  {st:<8} {b['status']:<8} {'same' if eq_out else 'DIFF':<6}  {(b['first'] or a['label'])[:60]}")
    n = max(len(mine), len(hand))
    print(f"{n} cells: {same_status} with the same status, {same_out} with the same output (times, addresses and decimals masked)")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        cmd_run(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        cmd_compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
