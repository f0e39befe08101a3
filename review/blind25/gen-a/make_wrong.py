"""make_wrong.py: writes every wrong file of wrongs.py from its exercise's correct file: the
header, then the correct body with the listed edits (each old text must occur exactly once)."""
import os
from apply import header, replace_once
from designs import DESIGNS
from wrongs import W as WRONGS
here = os.path.dirname(os.path.abspath(__file__))
for w in WRONGS:
    ex, slug, where, mistake, why, source, edits = w
    ext = DESIGNS[ex][0]
    body = open(os.path.join(here, 'work', ex + '.' + ext)).read()
    for old, new in edits:
        body = replace_once(body, old, new, ex + '/' + slug)
    out = os.path.join(here, '..', ex, 'wrong-%s.%s' % (slug, ext))
    open(out, 'w').write(header('wrong (%s)' % where, mistake, why, source) + body)
    print('wrote', os.path.relpath(out, os.path.join(here, '..')))
