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
