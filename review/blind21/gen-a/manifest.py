#!/usr/bin/env python3
# Writes MANIFEST-A.md from the files' four-line headers, and the two
# tables of README-A.md (between its CORRECT TABLE and WRONG TABLE marks).
import os, re
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
order = ['block-pool', 'async-pipeline', 'pool-reuse', 'cross-stream', 'strict-pool', 'vmm-growable', 'pool-resource']

def header(path):
    lines = open(path).read().split('\n')[:4]
    h = {}
    for l in lines:
        m = re.match(r'// (kind|mistake|why it is wrong|source): (.*)$', l)
        assert m, (path, l)
        h[m.group(1)] = m.group(2).replace('|', '/')
    return h

rows, correct, wrong = [], [], []
for ex in order:
    d = os.path.join(here, ex)
    files = sorted(os.listdir(d), key=lambda f: (not f.startswith('correct.'), f))
    for f in files:
        h = header(os.path.join(d, f))
        kind = h['kind']
        rows.append('%s | `%s/%s` | %s | %s | %s' % (ex, ex, f, kind, h['mistake'], h['source']))
        if f.startswith('correct.'):
            correct.append('| %s | `%s` | %s |' % (ex, f, h['mistake'].replace('none. Design: ', '')))
        else:
            shows = re.match(r'wrong \((.*)\)$', kind).group(1)
            wrong.append('| %s | `%s` | %s | %s | %s |' % (ex, f, h['mistake'], shows, h['source']))
open(os.path.join(here, 'MANIFEST-A.md'), 'w').write(
    '# blind21, first half (blind21a): one line a file\n\n'
    'exercise | file | kind | the mistake | its source\n--- | --- | --- | --- | ---\n' + '\n'.join(rows) + '\n')
readme = os.path.join(here, 'README-A.md')
if os.path.exists(readme):
    s = open(readme).read()
    s = re.sub(r'(<!-- CORRECT TABLE -->\n).*?(<!-- /CORRECT TABLE -->)',
               lambda m: m.group(1) + '| exercise | file | design |\n| --- | --- | --- |\n' + '\n'.join(correct) + '\n' + m.group(2), s, flags=re.S)
    s = re.sub(r'(<!-- WRONG TABLE -->\n).*?(<!-- /WRONG TABLE -->)',
               lambda m: m.group(1) + '| exercise | file | the mistake | shows | source |\n| --- | --- | --- | --- | --- |\n' + '\n'.join(wrong) + '\n' + m.group(2), s, flags=re.S)
    open(readme, 'w').write(s)
print(len(rows), 'files')
