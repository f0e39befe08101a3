#!/usr/bin/env python3
"""manifest.py: writes review/blind18/MANIFEST-A.md from the four header
lines of every file of this half, and prints the two README tables
(correct designs, wrong files) to stdout."""
import os
here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
EXS = ['block-pool', 'async-pipeline', 'pool-reuse', 'cross-stream', 'strict-pool', 'vmm-growable', 'pool-resource']

def header(path):
    lines = open(path).read().split('\n')[:4]
    keys = ['kind', 'mistake', 'why it is wrong', 'source']
    out = {}
    for k, l in zip(keys, lines):
        prefix = '// %s: ' % k
        assert l.startswith(prefix), (path, l)
        out[k] = l[len(prefix):]
    return out

man = ['# blind18, first half (blind18a): one line a file', '',
       'exercise | file | kind | the mistake | its source', '--- | --- | --- | --- | ---']
designs = ['| exercise | file | design |', '| --- | --- | --- |']
wrongs = ['| exercise | file | the mistake | shows | source |', '| --- | --- | --- | --- | --- |']
for ex in EXS:
    files = sorted(os.listdir(os.path.join(top, ex)), key=lambda f: (not f.startswith('correct'), f))
    for f in files:
        h = header(os.path.join(top, ex, f))
        man.append('%s | `%s/%s` | %s | %s | %s' % (ex, ex, f, h['kind'], h['mistake'], h['source']))
        if f.startswith('correct'):
            designs.append('| %s | `%s` | %s |' % (ex, f, h['mistake'].replace('none. Design: ', '', 1)))
        else:
            shows = h['kind'][len('wrong ('):-1]
            wrongs.append('| %s | `%s` | %s | %s | %s |' % (ex, f, h['mistake'], shows, h['source']))
open(os.path.join(top, 'MANIFEST-A.md'), 'w').write('\n'.join(man) + '\n')
print('\n'.join(designs))
print()
print('\n'.join(wrongs))
