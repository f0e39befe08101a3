#!/usr/bin/env python3
"""mkwrong.py EXERCISE: makes review/blind18/EXERCISE/wrong-*.EXT from the
folder's correct file and the edits listed in gen-a/wrong_EXERCISE.py
(WRONG = [dict(slug, ext, shows, mistake, why, source, edits=[(old, new)])]).
Each old string must occur exactly once in the correct file; the header's
four lines are replaced."""
import os, re, sys, runpy
here = os.path.dirname(os.path.abspath(__file__))
ex = sys.argv[1]
spec = runpy.run_path(os.path.join(here, 'wrong_%s.py' % ex.replace('-', '_')))
folder = os.path.join(os.path.dirname(here), ex)
correct = [f for f in os.listdir(folder) if f.startswith('correct.')][0]
ext = correct.split('.', 1)[1]
text = open(os.path.join(folder, correct)).read()
lines = text.split('\n')
assert lines[0].startswith('// kind: correct')
body = '\n'.join(lines[4:])
for w in spec['WRONG']:
    out = body
    for old, new in w['edits']:
        n = out.count(old)
        if n != 1:
            sys.exit('%s: %r occurs %d times' % (w['slug'], old, n))
        out = out.replace(old, new)
    hdr = ['// kind: wrong (%s)' % w['shows'], '// mistake: ' + w['mistake'],
           '// why it is wrong: ' + w['why'], '// source: ' + w['source']]
    open(os.path.join(folder, 'wrong-%s.%s' % (w['slug'], ext)), 'w').write('\n'.join(hdr) + '\n' + out)
    print('wrote', ex, w['slug'])
