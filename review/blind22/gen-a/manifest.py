#!/usr/bin/env python3
"""manifest.py: writes MANIFEST-A.md (one line a file) and fills the two
tables of README-A.md (between its CORRECT/WRONG TABLE markers) from the
four-line headers of blind22's first-half files."""
import glob, os, re
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = ['block-pool', 'async-pipeline', 'pool-reuse', 'cross-stream', 'strict-pool', 'vmm-growable', 'pool-resource']

def header(path):
    lines = open(path).read().split('\n')[:4]
    keys = ['kind', 'mistake', 'why it is wrong', 'source']
    out = {}
    for k, line in zip(keys, lines):
        prefix = '// %s: ' % k
        assert line.startswith(prefix), (path, line)
        out[k] = line[len(prefix):].replace('|', '/')
    return out

rows, correct, wrong = [], [], []
for ex in ORDER:
    files = sorted(glob.glob(os.path.join(here, ex, 'correct.*'))) + sorted(glob.glob(os.path.join(here, ex, 'wrong-*')))
    for f in files:
        h = header(f)
        name = '%s/%s' % (ex, os.path.basename(f))
        kind = 'correct' if h['kind'] == 'correct' else 'wrong'
        rows.append('%s | `%s` | %s | %s | %s' % (ex, name, h['kind'], h['mistake'], h['source']))
        if kind == 'correct':
            correct.append('| %s | `%s` | %s |' % (ex, name, h['mistake'].replace('none. Design: ', '')))
        else:
            where = h['kind'][len('wrong ('):-1]
            wrong.append('| %s | `%s` | %s | %s | %s |' % (ex, os.path.basename(f), h['mistake'], where, h['source']))

open(os.path.join(here, 'MANIFEST-A.md'), 'w').write(
    '# blind22, first half (A): one line a file\n\n'
    'exercise | file | kind | the mistake | its source\n'
    '--- | --- | --- | --- | ---\n' + '\n'.join(rows) + '\n')

readme = os.path.join(here, 'README-A.md')
if os.path.exists(readme):
    text = open(readme).read()
    ct = '<!-- CORRECT TABLE -->\n| exercise | file | design |\n| --- | --- | --- |\n' + '\n'.join(correct) + '\n<!-- /CORRECT TABLE -->'
    wt = '<!-- WRONG TABLE -->\n| exercise | file | the mistake | where it shows | source |\n| --- | --- | --- | --- | --- |\n' + '\n'.join(wrong) + '\n<!-- /WRONG TABLE -->'
    text = re.sub(r'<!-- CORRECT TABLE -->.*?<!-- /CORRECT TABLE -->', lambda m: ct, text, flags=re.S)
    text = re.sub(r'<!-- WRONG TABLE -->.*?<!-- /WRONG TABLE -->', lambda m: wt, text, flags=re.S)
    open(readme, 'w').write(text)
print('%d files' % len(rows))
