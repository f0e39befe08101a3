#!/usr/bin/env python3
"""manifest.py: prints this half's MANIFEST.md section from the files'
headers (kind, mistake, source), one line a file."""
import os, glob
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
order = ['block-pool', 'async-pipeline', 'pool-reuse', 'cross-stream', 'strict-pool', 'vmm-growable', 'pool-resource']
out = ['## First half (blind7a)', '',
       'Seven exercises; how they were written and chosen is in `README-A.md`. Each line: exercise | file | kind | the mistake | its public source.', '']
for ex in order:
    out += ['### ' + ex, '']
    files = sorted(glob.glob(os.path.join(root, ex, '*')), key=lambda f: (not os.path.basename(f).startswith('correct'), f))
    for f in files:
        h = {}
        for line in open(f):
            if not line.startswith('//'):
                break
            k, _, v = line[3:].partition(': ')
            h[k.strip()] = v.strip()
        out.append('- %s | `%s/%s` | %s | %s | %s' % (ex, ex, os.path.basename(f), h['kind'], h['mistake'], h['source']))
    out.append('')
print('\n'.join(out))
