"""make_correct.py: writes review/blind25/<exercise>/correct.<ext> from gen-a/work/<exercise>.<ext>
(the student file with its TODO parts filled in) and the design line in designs.py."""
import os
from apply import header
from designs import DESIGNS
here = os.path.dirname(os.path.abspath(__file__))
for ex, (ext, design) in DESIGNS.items():
    body = open(os.path.join(here, 'work', ex + '.' + ext)).read()
    out = os.path.join(here, '..', ex, 'correct.' + ext)
    open(out, 'w').write(header('correct', 'none. Design: ' + design, 'n/a (a correct file)', 'own') + body)
    print('wrote', os.path.relpath(out, os.path.join(here, '..')))
