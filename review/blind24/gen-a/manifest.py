"""manifest.py: writes review/blind24/MANIFEST-A.md, and the two tables of README-A.md
(between its CORRECT/WRONG TABLE markers), from the four header lines of each file."""
import os, re

ORDER = ["block-pool", "async-pipeline", "pool-reuse", "cross-stream", "strict-pool", "vmm-growable", "pool-resource"]
root = 'review/blind24'


def head(path):
    lines = open(path).read().split('\n')[:4]
    out = {}
    for l in lines:
        l = re.sub(r'^(//|#) ', '', l)
        k, v = l.split(': ', 1)
        out[k] = v
    return out


rows = []
for ex in ORDER:
    files = sorted(os.listdir(os.path.join(root, ex)), key=lambda f: (not f.startswith('correct'), f))
    for f in files:
        rows.append((ex, f, head(os.path.join(root, ex, f))))

m = ["# blind24, first half (A): one line a file", "",
     "exercise | file | kind | the mistake | its source", "--- | --- | --- | --- | ---"]
for ex, f, h in rows:
    kind = 'correct' if h['kind'] == 'correct' else 'wrong'
    m.append(f"{ex} | `{ex}/{f}` | {kind} | {h['mistake']} | {h['source']}")
open(os.path.join(root, 'MANIFEST-A.md'), 'w').write('\n'.join(m) + '\n')

ct = ["| exercise | file | design |", "| --- | --- | --- |"]
wt = ["| exercise | file | the mistake | where it shows | source |", "| --- | --- | --- | --- | --- |"]
for ex, f, h in rows:
    if h['kind'] == 'correct':
        ct.append(f"| {ex} | `{ex}/{f}` | {h['mistake'].replace('none. Design: ', '')} |")
    else:
        where = h['kind'][len('wrong ('):-1]
        wt.append(f"| {ex} | `{ex}/{f}` | {h['mistake']} | {where}: {h['why it is wrong']} | {h['source']} |")
readme = os.path.join(root, 'README-A.md')
if os.path.exists(readme):
    s = open(readme).read()
    s = re.sub(r'<!-- CORRECT TABLE -->.*<!-- /CORRECT TABLE -->', '<!-- CORRECT TABLE -->\n' + '\n'.join(ct) + '\n<!-- /CORRECT TABLE -->', s, flags=re.S)
    s = re.sub(r'<!-- WRONG TABLE -->.*<!-- /WRONG TABLE -->', '<!-- WRONG TABLE -->\n' + '\n'.join(wt) + '\n<!-- /WRONG TABLE -->', s, flags=re.S)
    open(readme, 'w').write(s)
print(len(rows), 'files')
