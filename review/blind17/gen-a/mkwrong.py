#!/usr/bin/env python3
"""mkwrong.py EXERCISE: makes each wrong file of review/blind17/EXERCISE from
its correct file and one edit, as listed in gen-a/wrong_<exercise>.py
(WRONG: a list of dicts: slug, shows, mistake, why, source, edits: a list
of (old, new), each old found exactly once). The header's four lines are
replaced; the rest of the file is the correct file with the edits."""
import importlib.util, os, sys

here = os.path.dirname(os.path.abspath(__file__))
ex = sys.argv[1]
d = os.path.join(os.path.dirname(here), ex)
correct = [f for f in os.listdir(d) if f.startswith('correct.')][0]
ext = correct.split('.', 1)[1]
text = open(os.path.join(d, correct)).read()
lines = text.split('\n')
assert lines[0].startswith('// kind: correct'), correct
body = '\n'.join(lines[4:])
spec = importlib.util.spec_from_file_location('w', os.path.join(here, 'wrong_' + ex.replace('-', '_') + '.py'))
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
for w in m.WRONG:
    b = body
    for old, new in w['edits']:
        n = b.count(old)
        if n != 1:
            sys.exit('%s/%s: %r found %d times' % (ex, w['slug'], old, n))
        b = b.replace(old, new)
    hdr = ['// kind: wrong (%s)' % w['shows'], '// mistake: ' + w['mistake'],
           '// why it is wrong: ' + w['why'], '// source: ' + w['source']]
    open(os.path.join(d, 'wrong-%s.%s' % (w['slug'], ext)), 'w').write('\n'.join(hdr) + '\n' + b)
    print('made', ex, w['slug'])
