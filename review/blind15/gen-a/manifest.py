#!/usr/bin/env python3
# manifest.py: writes MANIFEST-A.md (one line a file) and the README's two
# tables' rows (readme-rows.md, for pasting) from the files' own headers.
import os
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
order = ['block-pool', 'async-pipeline', 'pool-reuse', 'cross-stream', 'strict-pool', 'vmm-growable', 'pool-resource']
man = ['# blind15a manifest (issue 36): exercise | file | kind | the mistake | its source', '']
rows_c, rows_w = [], []
for ex in order:
    man.append('### ' + ex)
    files = sorted(os.listdir(os.path.join(root, ex)), key=lambda f: (not f.startswith('correct'), f))
    for f in files:
        h = open(os.path.join(root, ex, f)).read().split('\n')[:4]
        kind = h[0][len('// kind: '):]
        mistake = h[1][len('// mistake: '):]
        source = h[3][len('// source: '):]
        man.append('- %s | `%s/%s` | %s | %s | %s' % (ex, ex, f, kind, mistake, source))
        if f.startswith('correct'):
            rows_c.append('| %s | `%s` | %s |' % (ex, f, mistake.replace('none. Design: ', '')))
        else:
            shows = kind[len('wrong ('):-1]
            rows_w.append('| %s | `%s` | %s | %s | %s |' % (ex, f, mistake, shows, source))
open(os.path.join(root, 'MANIFEST-A.md'), 'w').write('\n'.join(man) + '\n')
open(os.path.join(here, 'readme-rows.md'), 'w').write('\n'.join(rows_c) + '\n\n' + '\n'.join(rows_w) + '\n')
print(len(man))
