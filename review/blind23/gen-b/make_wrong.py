#!/usr/bin/env python3
"""Writes every wrong file of blind23 (half B) from its exercise's correct
file: the correct file's four header lines are replaced by the wrong
file's, and each (old, new) edit of the entry is applied once (old must
occur exactly once in the correct file). Run from review/blind23."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wrongs import WRONGS

def header(ext, lines):
    c = '#' if ext == 'py' else '//'
    return ''.join(f'{c} {l}\n' for l in lines)

for w in WRONGS:
    ex, slug, ext = w['ex'], w['slug'], w['ext']
    body = open(f'{ex}/correct.{ext}').read().split('\n', 4)[4]
    for old, new in w['edits']:
        n = body.count(old)
        if n != 1:
            sys.exit(f'{ex}/{slug}: edit found {n} times: {old[:60]!r}')
        body = body.replace(old, new)
    h = header(ext, [f"kind: wrong ({w['where']})", f"mistake: {w['mistake']}",
                     f"why it is wrong: {w['why']}", f"source: {w['source']}"])
    open(f'{ex}/wrong-{slug}.{ext}', 'w').write(h + body)
    print(f'{ex}/wrong-{slug}.{ext}')
