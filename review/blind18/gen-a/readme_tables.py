#!/usr/bin/env python3
"""readme_tables.py: rewrites the two tables of README-A.md (correct
designs, wrong files) from the headers, through manifest.py's output."""
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
out = subprocess.run([sys.executable, os.path.join(here, 'manifest.py')], capture_output=True, text=True, check=True).stdout
designs, wrongs = out.strip().split('\n\n')
path = os.path.join(os.path.dirname(here), 'README-A.md')
lines = open(path).read().split('\n')
res, i = [], 0
tables = [designs.split('\n'), wrongs.split('\n')]
while i < len(lines):
    if lines[i].startswith('| exercise |'):
        res.extend(tables.pop(0))
        while i < len(lines) and lines[i].startswith('|'):
            i += 1
        continue
    res.append(lines[i])
    i += 1
assert not tables
open(path, 'w').write('\n'.join(res))
