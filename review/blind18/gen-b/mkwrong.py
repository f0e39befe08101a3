"""mkwrong.py EXERCISE SLUG 'where' 'mistake' 'why' 'source' OLD NEW [OLD NEW ...]:
writes review/blind18/EXERCISE/wrong-SLUG.EXT from correct.EXT, with each
OLD (which must occur exactly once) replaced by NEW and the header rewritten."""
import glob, os, sys
ex, slug, where, mistake, why, source = sys.argv[1:7]
edits = sys.argv[7:]
d = os.path.join(os.path.dirname(__file__), "..", ex)
correct = glob.glob(os.path.join(d, "correct.*"))[0]
ext = correct.rsplit(".", 1)[1]
text = open(correct).read()
c = "#" if ext == "py" else "//"
lines = text.split("\n")
assert lines[0].startswith(c + " kind: correct"), lines[0]
body = "\n".join(lines[4:])
for old, new in zip(edits[::2], edits[1::2]):
    n = body.count(old)
    assert n == 1, (slug, old, n)
    body = body.replace(old, new)
hdr = [f"{c} kind: wrong ({where})", f"{c} mistake: {mistake}", f"{c} why it is wrong: {why}", f"{c} source: {source}"]
open(os.path.join(d, f"wrong-{slug}.{ext}"), "w").write("\n".join(hdr) + "\n" + body)
print("wrote", slug)
