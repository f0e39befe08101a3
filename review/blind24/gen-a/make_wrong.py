"""make_wrong.py [EXERCISE...]: writes each wrong file listed in wrongs.py from its exercise's
correct file: the correct file's four header lines replaced by the wrong file's, then ONE
edit (every old text must occur exactly once). Run from the worktree root."""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from apply import header, replace_all
from wrongs import WRONGS

only = set(sys.argv[1:])
for w in WRONGS:
    if only and w['ex'] not in only:
        continue
    d = os.path.join('review/blind24', w['ex'])
    correct = [f for f in os.listdir(d) if f.startswith('correct.')][0]
    ext = correct.rsplit('.', 1)[1]
    lines = open(os.path.join(d, correct)).read().split('\n')
    body = '\n'.join(lines[4:])
    body = replace_all(body, w['edits'], w['slug'])
    head = header(f"wrong ({w['where']})", w['mistake'], w['why'], w['source'], ext)
    out = os.path.join(d, f"wrong-{w['slug']}.{ext}")
    open(out, 'w').write(head + body)
    print('wrote', out)
