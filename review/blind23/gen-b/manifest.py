#!/usr/bin/env python3
"""Writes MANIFEST-B.md from the four-line headers of the files of half B.
Run from review/blind23."""
import glob, os

EXERCISES = ['stream-pools', 'stream-ordered-pool', 'ipc-pool', 'graph-alloc', 'peer-pool', 'heap-vs-pool', 'python-handoff']

def header(path):
    lines = open(path).read().split('\n')[:4]
    out = {}
    for l in lines:
        l = l.lstrip('/# ').rstrip()
        k, _, v = l.partition(': ')
        out[k] = v
    return out

rows = ['# blind23, second half (B): one line a file', '',
        'exercise | file | kind | the mistake | its source', '--- | --- | --- | --- | ---']
for ex in EXERCISES:
    files = sorted(glob.glob(f'{ex}/correct.*')) + sorted(glob.glob(f'{ex}/wrong-*'))
    for f in files:
        h = header(f)
        kind = h['kind'].replace('|', '/')
        rows.append(f"{ex} | `{f}` | {kind} | {h['mistake'].replace('|', '/')} | {h['source'].replace('|', '/')}")
open('MANIFEST-B.md', 'w').write('\n'.join(rows) + '\n')
print(len(rows) - 4, 'files')

# The two tables of README-B.md, between their markers.
def table(kind):
    out = []
    if kind == 'CORRECT':
        out += ['| exercise | file | design |', '| --- | --- | --- |']
    else:
        out += ['| exercise | file | the mistake | where it shows | source |', '| --- | --- | --- | --- | --- |']
    for ex in EXERCISES:
        pat = 'correct.*' if kind == 'CORRECT' else 'wrong-*'
        for f in sorted(glob.glob(f'{ex}/{pat}')):
            h = header(f)
            name = os.path.basename(f)
            if kind == 'CORRECT':
                out.append(f"| {ex} | `{f}` | {h['mistake'].replace('none. Design: ', '').replace('|', '/')} |")
            else:
                where = h['kind'][len('wrong ('):-1]
                out.append(f"| {ex} | `{name}` | {h['mistake'].replace('|', '/')} | {where.replace('|', '/')} | {h['source'].replace('|', '/')} |")
    return '\n'.join(out)

if os.path.exists('README-B.md'):
    text = open('README-B.md').read()
    for kind in ('CORRECT', 'WRONG'):
        a, b = f'<!-- {kind} TABLE -->', f'<!-- /{kind} TABLE -->'
        head, rest = text.split(a, 1)
        _, tail = rest.split(b, 1)
        text = head + a + '\n' + table(kind) + '\n' + b + tail
    open('README-B.md', 'w').write(text)
    print('README-B.md tables written')
