"""make_correct.py [NAME...]: writes review/blind24/<exercise>/correct.<ext> from the
student file and the replacements in correct/<name>.py (run from the worktree root)."""
import importlib.util, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from apply import header, replace_all

here = os.path.dirname(os.path.abspath(__file__))
names = sys.argv[1:] or sorted(f[:-3] for f in os.listdir(os.path.join(here, 'correct')) if f.endswith('.py'))
for name in names:
    spec = importlib.util.spec_from_file_location(name, os.path.join(here, 'correct', name + '.py'))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    ext = m.STUDENT.rsplit('.', 1)[1]
    text = open(m.STUDENT).read()
    text = replace_all(text, m.EDITS, name)
    head = header('correct', 'none. Design: ' + m.DESIGN, 'not wrong', getattr(m, 'SOURCE', 'own'), ext)
    out = os.path.join('review/blind24', m.EX, 'correct.' + ext)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    open(out, 'w').write(head + text)
    print('wrote', out)
