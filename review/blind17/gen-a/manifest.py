#!/usr/bin/env python3
"""manifest.py: writes review/blind17/MANIFEST-A.md from the four header
lines of every file of this half, and prints the README's two tables."""
import os, re, sys
here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
EXS = ['block-pool', 'async-pipeline', 'pool-reuse', 'cross-stream', 'strict-pool', 'vmm-growable', 'pool-resource']

def header(path):
    lines = open(path).read().split('\n')[:4]
    keys = ['kind', 'mistake', 'why it is wrong', 'source']
    out = {}
    for k, l in zip(keys, lines):
        assert l.startswith('// ' + k + ': '), (path, l)
        out[k] = l[len('// ' + k + ': '):]
    return out

def esc(s):
    return s.replace('|', '\\|')

man = ['# blind17a manifest', '', 'exercise | file | kind | the mistake | its source', '--- | --- | --- | --- | ---']
corr = ['| exercise | file | design |', '| --- | --- | --- |']
wrong = ['| exercise | file | the mistake | shows | source |', '| --- | --- | --- | --- | --- |']
for ex in EXS:
    d = os.path.join(top, ex)
    files = sorted(os.listdir(d), key=lambda f: (not f.startswith('correct'), f))
    for f in files:
        h = header(os.path.join(d, f))
        man.append('%s | `%s/%s` | %s | %s | %s' % (ex, ex, f, esc(h['kind']), esc(h['mistake']), esc(h['source'])))
        if f.startswith('correct'):
            corr.append('| %s | `%s` | %s |' % (ex, f, esc(re.sub(r'^none\. Design: ', '', h['mistake']))))
        else:
            shows = re.sub(r'^wrong \((.*)\)$', r'\1', h['kind'])
            wrong.append('| %s | `%s` | %s | %s | %s |' % (ex, f, esc(h['mistake']), esc(shows), esc(h['source'])))
open(os.path.join(top, 'MANIFEST-A.md'), 'w').write('\n'.join(man) + '\n')
if len(sys.argv) > 1 and sys.argv[1] == 'tables':
    print('\n'.join(corr)); print(); print('\n'.join(wrong))
