#!/usr/bin/env python3
"""gen.py SPEC.py: writes review/blind7/<exercise>/ from a spec: the
student file with its TODO regions replaced (correct), and each wrong
file as the correct one with exact edits (each must match once)."""
import os, sys, runpy
spec = runpy.run_path(sys.argv[1])
root = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(root, '..', spec['EXERCISE'])
os.makedirs(out, exist_ok=True)
src = open(os.path.join(root, '..', '..', '..', spec['STUDENT'])).read()
body = src
for old, new in spec['TODO']:
    if body.count(old) != 1:
        sys.exit('%s: TODO edit matches %d times: %r' % (sys.argv[1], body.count(old), old[:80]))
    body = body.replace(old, new)
def header(h):
    c = spec.get('COMMENT', '//')
    lines = []
    for k in ('kind', 'mistake', 'why it is wrong', 'source'):
        lines.append('%s %s: %s' % (c, k, h[k]))
    return '\n'.join(lines) + '\n'
ext = spec['EXT']
open(os.path.join(out, 'correct.' + ext), 'w').write(header(spec['CORRECT']) + body)
for slug, h, edits in spec['WRONG']:
    b = body
    for old, new in edits:
        if b.count(old) != 1:
            sys.exit('%s: %s: edit matches %d times: %r' % (sys.argv[1], slug, b.count(old), old[:80]))
        b = b.replace(old, new)
    open(os.path.join(out, 'wrong-%s.%s' % (slug, ext)), 'w').write(header(h) + b)
print('wrote', out)
