#!/usr/bin/env python3
# make_wrong.py: writes every wrong file of wrongs.py from its exercise's
# correct file: the correct file's four header lines replaced by the
# wrong file's, and its one edit made (the old text must occur exactly
# once in the correct file).
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from wrongs import W  # noqa: E402

root = os.path.dirname(here)
ext = {"pool-resource": ".h"}
count = 0
for w in W:
    e = ext.get(w["ex"], ".cu")
    correct = open(os.path.join(root, w["ex"], "correct" + e)).read()
    lines = correct.split("\n")
    assert lines[0] == "// kind: correct", w["ex"]
    body = "\n".join(lines[4:])
    n = body.count(w["old"])
    if n != 1:
        sys.exit("%s/%s: the edit's old text occurs %d times" % (w["ex"], w["slug"], n))
    body = body.replace(w["old"], w["new"])
    header = "\n".join([
        "// kind: wrong (%s)" % w["shows"],
        "// mistake: %s" % w["mistake"],
        "// why it is wrong: %s" % w["why"],
        "// source: %s" % w["source"],
    ])
    out = os.path.join(root, w["ex"], "wrong-" + w["slug"] + e)
    with open(out, "w") as f:
        f.write(header + "\n" + body)
    count += 1
print("wrote %d wrong files" % count)
