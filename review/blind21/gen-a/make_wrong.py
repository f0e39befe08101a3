#!/usr/bin/env python3
# Writes every wrong file of blind21's first half from its exercise's
# correct file: the header replaced, then each edit of wrongs.py applied
# (each old string must match the correct file exactly once).
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wrongs import W
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for w in W:
    d = os.path.join(here, w['ex'])
    correct = [f for f in os.listdir(d) if f.startswith('correct.')][0]
    ext = correct.split('.', 1)[1]
    src = open(os.path.join(d, correct)).read()
    lines = src.split('\n')
    assert lines[0].startswith('// kind: correct'), correct
    body = '\n'.join(lines[4:])
    for old, new in w['edits']:
        n = body.count(old)
        if n != 1:
            sys.exit('%s/%s: edit matches %d times: %r' % (w['ex'], w['slug'], n, old[:60]))
        body = body.replace(old, new)
    hdr = ['// kind: wrong (%s)' % w['shows'], '// mistake: %s' % w['mistake'],
           '// why it is wrong: %s' % w['why'], '// source: %s' % w['source']]
    out = os.path.join(d, 'wrong-%s.%s' % (w['slug'], ext))
    open(out, 'w').write('\n'.join(hdr) + '\n' + body)
    print(out)
