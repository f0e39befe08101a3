#!/usr/bin/env python3
"""refresh_readme.py: runs tables.py's output (gen-b/tables.md) into the
two tables of README-B.md, in place."""
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
t = subprocess.run([sys.executable, os.path.join(here, "tables.py")], capture_output=True, text=True, check=True).stdout
open(os.path.join(here, "tables.md"), "w").write(t)
t = t.split("\n")
path = os.path.join(here, "..", "README-B.md")
r = open(path).read()
a = r.index("| exercise | file | design |"); b = r.index("\n\nNotes on them:")
r = r[:a] + "\n".join(t[0:9]) + r[b:]
a = r.index("| exercise | file | the mistake |"); b = r.index("\n\n## What I expect")
r = r[:a] + "\n".join(t[10:40]) + r[b:]
open(path, "w").write(r)
