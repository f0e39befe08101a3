"""Writes review/blind6/MANIFEST.md's second half (blind6b) from the files'
headers; run from the root of the repository after gen-b/all.sh. The first
half's section is blind6a's: this keeps whatever stands before the line
'## Second half (blind6b)' (the whole file when that line is missing) and
rewrites what follows it."""
import os
import re

base = 'review/blind6'
order = ['stream-pools', 'stream-ordered-pool', 'ipc-pool', 'graph-alloc', 'peer-pool', 'heap-vs-pool', 'python-handoff']
mark = '## Second half (blind6b)'
path = f'{base}/MANIFEST.md'
head = ['# The sixth blind set: manifest (issue 36)', '',
        "One line a file: kind; mistake; source. Each file's header has the full text (`kind:`, `mistake:`, `why it is wrong:`, `source:`).", '',
        '## First half (blind6a)', '',
        'See `README-A.md`: block-pool, async-pipeline, pool-reuse, cross-stream, strict-pool, vmm-growable, pool-resource.', '']
if os.path.exists(path):
    old = open(path).read()
    # Keep what the first half wrote: everything before this half's
    # heading, or the whole file when the heading is not there yet.
    kept = old[:old.index(mark)] if mark in old else old
    if kept.strip():
        head = kept.rstrip('\n').split('\n') + ['']
out = head + [mark, '']
for ex in order:
    out += [f'### {ex}', '']
    files = sorted(os.listdir(f'{base}/{ex}'), key=lambda f: (not f.startswith('correct'), f))
    for f in files:
        c = '#' if f.endswith('.py') else '//'
        hdr, key = {}, None
        for line in open(f'{base}/{ex}/{f}').read().splitlines():
            if not line.startswith(c):
                break
            line = line[len(c):].strip()
            m = re.match(r'(kind|mistake|why it is wrong|source):\s*(.*)', line)
            if m:
                key = m.group(1)
                hdr[key] = m.group(2)
            elif key:
                hdr[key] += ' ' + line
        out.append(f"- `{ex}/{f}`: {hdr['kind']}; {hdr['mistake']} Source: {hdr['source']}")
    out.append('')
open(path, 'w').write('\n'.join(out))
