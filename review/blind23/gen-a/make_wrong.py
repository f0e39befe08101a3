#!/usr/bin/env python3
"""make_wrong.py: writes every wrong file of blind23's first half from its
exercise's correct file and the one edit listed for it in wrongs.py: the
correct file's four-line header replaced by the wrong file's, and the
edit's old text (which must occur exactly once) replaced by its new
text (a list of such pairs where one mistake touches two places)."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from wrongs import WRONGS
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
for ex, slug, where, mistake, why, source, old, new in WRONGS:
    d = os.path.join(here, ex)
    correct = [f for f in os.listdir(d) if f.startswith('correct.')][0]
    ext = correct.split('.', 1)[1]
    text = open(os.path.join(d, correct)).read()
    lines = text.split('\n')
    body = '\n'.join(lines[4:])
    # One mistake, made by one edit or (where the mistake touches two
    # places) a list of edits, each old text occurring exactly once.
    olds, news = (old, new) if isinstance(old, list) else ([old], [new])
    for o, n in zip(olds, news):
        if body.count(o) != 1:
            sys.exit(f'{ex}/{slug}: the edit occurs {body.count(o)} times')
        body = body.replace(o, n)
    c = '#' if ext == 'py' else '//'
    head = [f'{c} kind: wrong ({where})', f'{c} mistake: {mistake}', f'{c} why it is wrong: {why}', f'{c} source: {source}']
    open(os.path.join(d, f'wrong-{slug}.{ext}'), 'w').write('\n'.join(head) + '\n' + body)
    print(f'{ex}/wrong-{slug}.{ext}')
