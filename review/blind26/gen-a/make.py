"""Writes review/blind26/<exercise>/correct.* and wrong-*.* from work/ and the
edits in wrongs.py: diff correct wrong-* shows the header and the mistake."""
from apply import body, edit, header, write
from designs import DESIGNS
from wrongs import WRONGS

CORRECT_WHY = "it is not: the design the wrong files of this exercise are made from"

for ex, design in DESIGNS.items():
    write(ex, "correct", header("correct", design, CORRECT_WHY, "own") + body(ex))

seen = set()
for w in WRONGS:
    key = (w["ex"], w["slug"])
    assert key not in seen, key
    seen.add(key)
    text = body(w["ex"])
    for old, new in w["edits"]:
        text = edit(text, old, new)
    write(w["ex"], "wrong-" + w["slug"], header("wrong", w["mistake"], w["why"], w["source"]) + text)
print(f"{len(DESIGNS)} correct, {len(WRONGS)} wrong")
