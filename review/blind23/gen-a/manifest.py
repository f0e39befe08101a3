#!/usr/bin/env python3
"""manifest.py: writes MANIFEST-A.md from the four-line headers of the
files of blind23's first half, and fills the two tables of README-A.md
(between its CORRECT TABLE and WRONG TABLE markers) from the same
headers."""
import os, re
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
order = ['block-pool', 'async-pipeline', 'pool-reuse', 'cross-stream', 'strict-pool', 'vmm-growable', 'pool-resource']
def header(path):
    lines = open(path).read().split('\n')[:4]
    out = {}
    for l in lines:
        l = re.sub(r'^(//|#) ', '', l)
        k, v = l.split(': ', 1)
        out[k] = v.replace('|', '/')
    return out
man = ['# blind23, first half (A): one line a file', '', 'exercise | file | kind | the mistake | its source', '--- | --- | --- | --- | ---']
ct = ['| exercise | file | design |', '| --- | --- | --- |']
wt = ['| exercise | file | the mistake | where it shows | source |', '| --- | --- | --- | --- | --- |']
for ex in order:
    files = sorted(os.listdir(os.path.join(here, ex)), key=lambda f: (not f.startswith('correct'), f))
    for f in files:
        h = header(os.path.join(here, ex, f))
        kind = h['kind']
        man.append(f"{ex} | `{ex}/{f}` | {kind} | {h['mistake']} | {h['source']}")
        if f.startswith('correct'):
            ct.append(f"| {ex} | `{ex}/{f}` | {h['mistake'].replace('none. Design: ', '')} |")
        else:
            where = kind[len('wrong ('):-1]
            wt.append(f"| {ex} | `{ex}/{f}` | {h['mistake']} | {where} | {h['source']} |")
open(os.path.join(here, 'MANIFEST-A.md'), 'w').write('\n'.join(man) + '\n')
readme = os.path.join(here, 'README-A.md')
if os.path.exists(readme):
    s = open(readme).read()
    for name, table in (('CORRECT TABLE', ct), ('WRONG TABLE', wt)):
        s = re.sub(f'<!-- {name} -->.*?<!-- /{name} -->', f'<!-- {name} -->\n' + '\n'.join(table) + f'\n<!-- /{name} -->', s, flags=re.S)
    open(readme, 'w').write(s)
print(len(man) - 4, 'files')
