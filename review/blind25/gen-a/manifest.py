"""manifest.py: writes review/blind25/MANIFEST-A.md (one line a file) and the two tables of
README-A.md (between its CORRECT TABLE and WRONG TABLE markers) from the files' four-line headers."""
import os, re, glob
here = os.path.dirname(os.path.abspath(__file__))
top = os.path.normpath(os.path.join(here, '..'))
EXS = ['block-pool', 'async-pipeline', 'pool-reuse', 'cross-stream', 'strict-pool', 'vmm-growable', 'pool-resource']
def head(path):
    lines = open(path).read().split('\n')[:4]
    keys = ['kind', 'mistake', 'why it is wrong', 'source']
    out = {}
    for k, l in zip(keys, lines):
        pre = '// ' + k + ': '
        assert l.startswith(pre), (path, l)
        out[k] = l[len(pre):]
    return out
rows, correct, wrong = [], [], []
for ex in EXS:
    files = sorted(glob.glob(os.path.join(top, ex, '*.*')), key=lambda p: (not os.path.basename(p).startswith('correct'), p))
    for f in files:
        h = head(f)
        rel = '%s/%s' % (ex, os.path.basename(f))
        kind = 'correct' if h['kind'] == 'correct' else 'wrong'
        rows.append('%s | `%s` | %s | %s | %s' % (ex, rel, kind, h['mistake'], h['source']))
        if kind == 'correct':
            correct.append('| %s | `%s` | %s |' % (ex, rel, h['mistake'].replace('none. Design: ', '', 1)))
        else:
            where = re.match(r'wrong \((.*)\)$', h['kind']).group(1)
            wrong.append('| %s | `%s` | %s | %s; %s | %s |' % (ex, rel, h['mistake'], where, h['why it is wrong'], h['source']))
open(os.path.join(top, 'MANIFEST-A.md'), 'w').write('# blind25, first half (A): one line a file\n\nexercise | file | kind | the mistake | its source\n' + '\n'.join(rows) + '\n')
readme = os.path.join(top, 'README-A.md')
if os.path.exists(readme):
    t = open(readme).read()
    ct = '<!-- CORRECT TABLE -->\n| exercise | file | design |\n| --- | --- | --- |\n' + '\n'.join(correct) + '\n<!-- /CORRECT TABLE -->'
    wt = '<!-- WRONG TABLE -->\n| exercise | file | the mistake | where it shows | source |\n| --- | --- | --- | --- | --- |\n' + '\n'.join(wrong) + '\n<!-- /WRONG TABLE -->'
    t = re.sub(r'<!-- CORRECT TABLE -->.*?<!-- /CORRECT TABLE -->', lambda m: ct, t, flags=re.S)
    t = re.sub(r'<!-- WRONG TABLE -->.*?<!-- /WRONG TABLE -->', lambda m: wt, t, flags=re.S)
    open(readme, 'w').write(t)
print(len(rows), 'files')
