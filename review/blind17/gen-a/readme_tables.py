#!/usr/bin/env python3
"""readme_tables.py: rewrites the two tables of review/blind17/README-A.md
(the correct designs, the wrong files) from the files' headers, through
manifest.py (which also rewrites MANIFEST-A.md)."""
import os, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
out = subprocess.run([sys.executable, os.path.join(here, 'manifest.py'), 'tables'], capture_output=True, text=True, check=True).stdout
corr, wrong = [t.strip() for t in out.split('\n\n')]
p = os.path.join(os.path.dirname(here), 'README-A.md')
lines = open(p).read().split('\n')
res, skip = [], False
for l in lines:
    if l.startswith('| exercise | file | design |'):
        res.append(corr); skip = True; continue
    if l.startswith('| exercise | file | the mistake |'):
        res.append(wrong); skip = True; continue
    if skip and l.startswith('|'):
        continue
    skip = False
    res.append(l)
open(p, 'w').write('\n'.join(res))
