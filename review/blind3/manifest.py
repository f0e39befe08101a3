# manifest.py DIR: one line per file of DIR: kind, mistake, source, from its header.
import os, re, sys
d = sys.argv[1]
lines = ["# %s: third blind set (issue 36)" % os.path.basename(d.rstrip('/')), ""]
for f in sorted(os.listdir(d)):
    if f == 'MANIFEST.md' or f.startswith('.') or f == '__pycache__': continue
    txt = open(os.path.join(d, f)).read().split('\n')
    head = []
    for l in txt:
        if l.startswith('//') or l.startswith('#'):
            head.append(re.sub(r'^(//|#) ?', '', l))
        else:
            break
    fields = {}; cur = None
    for l in head:
        m = re.match(r'(kind|mistake|why it is wrong|source): ?(.*)', l)
        if m: cur = m.group(1); fields[cur] = m.group(2)
        elif cur and l.startswith('  '): fields[cur] += ' ' + l.strip()
        else: break
    lines.append("- `%s`: %s. Mistake: %s Source: %s" % (f, fields.get('kind','?'), fields.get('mistake','?'), fields.get('source','?')))
# A "## Judged" section (what each file that passed turned out to be) is
# kept as it is.
path = os.path.join(d, 'MANIFEST.md')
judged = ''
if os.path.exists(path):
    old = open(path).read()
    if '\n## Judged' in old:
        judged = old[old.index('\n## Judged'):]
open(path, 'w').write('\n'.join(lines) + '\n' + judged)
