"""Half B's designs and wrong files: the data make.py and manifest.py read."""
EXERCISES = {}
WRONGS = {}

import os, glob, importlib.util  # noqa: E401,E402
_here = os.path.dirname(os.path.abspath(__file__))
for _p in sorted(glob.glob(os.path.join(_here, "ex_*.py"))):
    _spec = importlib.util.spec_from_file_location(os.path.basename(_p)[:-3], _p)
    _m = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_m)
    EXERCISES[_m.ID] = dict(ext=_m.EXT, student=_m.STUDENT, design=_m.DESIGN, source=getattr(_m, "SOURCE", "own"))
    WRONGS[_m.ID] = _m.WRONGS
