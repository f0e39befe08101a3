#!/usr/bin/env python3
# mkwrong.py EXERCISE SLUG EXT: reads the header (4 lines: mistake, why,
# source) and the edits from stdin as a python literal:
# {"mistake":..., "why":..., "source":..., "edits":[(old,new),...]}
import ast, sys
ex, slug, ext = sys.argv[1:4]
spec = ast.literal_eval(sys.stdin.read())
cmt = '#' if ext == 'py' else '//'
src = open(f'review/blind13/{ex}/correct.{ext}').read()
lines = src.split('\n')
body = '\n'.join(lines[4:])
for old, new in spec['edits']:
    n = body.count(old)
    if n != 1:
        sys.exit(f'{slug}: edit found {n} times: {old[:60]!r}')
    body = body.replace(old, new)
hdr = [f'{cmt} kind: wrong ({spec["shows"]})', f'{cmt} mistake: {spec["mistake"]}',
       f'{cmt} why it is wrong: {spec["why"]}', f'{cmt} source: {spec["source"]}']
open(f'review/blind13/{ex}/wrong-{slug}.{ext}', 'w').write('\n'.join(hdr) + '\n' + body)
