#!/usr/bin/env python3
"""mkwrong.py: makes each wrong file of blind16a from its folder's correct
file and one edit. Each wrong_<exercise>.py defines WRONG, a list of
(slug, header_lines, [(old, new), ...]); every old must occur exactly once
in the correct file (after its header). Usage: mkwrong.py exercise..."""
import importlib.util, os, sys
here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
for ex in sys.argv[1:]:
    spec = importlib.util.spec_from_file_location("w", os.path.join(here, "wrong_%s.py" % ex.replace("-", "_")))
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    corr = [f for f in os.listdir(os.path.join(top, ex)) if f.startswith("correct.")][0]
    ext = corr.split(".", 1)[1]
    text = open(os.path.join(top, ex, corr)).read()
    lines = text.split("\n")
    body = "\n".join(lines[4:])
    for slug, hdr, edits in m.WRONG:
        out = body
        for old, new in edits:
            n = out.count(old)
            if n != 1:
                sys.exit("%s/%s: %r occurs %d times" % (ex, slug, old, n))
            out = out.replace(old, new)
        c = "#" if ext == "py" else "//"
        head = "\n".join("%s %s" % (c, h) for h in hdr)
        open(os.path.join(top, ex, "wrong-%s.%s" % (slug, ext)), "w").write(head + "\n" + out)
        print("made %s/wrong-%s.%s" % (ex, slug, ext))
