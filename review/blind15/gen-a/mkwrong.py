#!/usr/bin/env python3
# mkwrong.py EXERCISE: makes review/blind15/EXERCISE/wrong-*.EXT from the
# folder's correct file and the edits listed in wrong_EXERCISE.py (each an
# exact text that must occur once, and its replacement), with the header
# of four lines replaced by the wrong file's own.
import importlib.util, os, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)

def main(ex):
    mod = ex.replace('-', '_')
    spec = importlib.util.spec_from_file_location(mod, os.path.join(here, 'wrong_%s.py' % mod))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    folder = os.path.join(root, ex)
    correct = [f for f in os.listdir(folder) if f.startswith('correct.')][0]
    ext = correct.split('.', 1)[1]
    text = open(os.path.join(folder, correct)).read()
    lines = text.split('\n')
    assert lines[0].startswith('// kind: correct'), correct
    body = '\n'.join(lines[4:])
    for w in m.WRONG:
        out = body
        for old, new in w['edits']:
            assert out.count(old) == 1, (w['slug'], old, out.count(old))
            out = out.replace(old, new)
        hdr = '// kind: wrong (%s)\n// mistake: %s\n// why it is wrong: %s\n// source: %s\n' % (
            w['shows'], w['mistake'], w['why'], w['source'])
        open(os.path.join(folder, 'wrong-%s.%s' % (w['slug'], ext)), 'w').write(hdr + out)
        print('made', ex, w['slug'])

if __name__ == '__main__':
    for ex in sys.argv[1:]:
        main(ex)
