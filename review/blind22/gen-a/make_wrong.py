#!/usr/bin/env python3
"""make_wrong.py: writes every wrong file of blind22's first half from its
exercise's correct file and the edits listed in wrongs.py. Each edit is a
list of (old, new) pairs; every old text must occur exactly once in the
correct file (checked), so a wrong file differs from its correct file by
its header and that one mistake only."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wrongs import WRONGS

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXT = {'pool-resource': 'h'}

def header_of(text):
    lines = text.split('\n')
    assert lines[0].startswith('// kind: correct'), lines[0]
    return '\n'.join(lines[4:])

def main():
    n = 0
    for w in WRONGS:
        ex = w['exercise']
        ext = EXT.get(ex, 'cu')
        body = header_of(open(os.path.join(here, ex, 'correct.' + ext)).read())
        for old, new in w['edits']:
            c = body.count(old)
            if c != 1:
                sys.exit('%s/%s: the edit text occurs %d times:\n%s' % (ex, w['slug'], c, old))
            body = body.replace(old, new)
        hdr = ('// kind: wrong (%s)\n// mistake: %s\n// why it is wrong: %s\n// source: %s\n'
               % (w['where'], w['mistake'], w['why'], w['source']))
        for line in hdr.split('\n')[:4]:
            assert '\n' not in line
        path = os.path.join(here, ex, 'wrong-%s.%s' % (w['slug'], ext))
        open(path, 'w').write(hdr + body)
        n += 1
    print('wrote %d wrong files' % n)

if __name__ == '__main__':
    main()
