#!/usr/bin/env python3
"""Makes every wrong file of blind17 (half B) from its exercise's correct file
by one textual edit: the correct file's four-line header is replaced by the
wrong file's, and one piece of text (which must occur exactly once) by another.
The edits live in edits.py. Run from review/blind17: python3 gen-b/make.py"""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from edits import EDITS

def comment(ext):
    return "#" if ext == "py" else "//"

for ex, ext, slug, where, mistake, why, source, old, new in EDITS:
    c = comment(ext)
    text = open(f"{ex}/correct.{ext}").read()
    lines = text.split("\n")
    if ext == "py":
        body = "\n".join(lines[4:])
    else:
        body = "\n".join(lines[4:])
    n = body.count(old)
    assert n == 1, (ex, slug, n)
    body = body.replace(old, new)
    hdr = (f"{c} kind: wrong ({where})\n{c} mistake: {mistake}\n"
           f"{c} why it is wrong: {why}\n{c} source: {source}\n")
    open(f"{ex}/wrong-{slug}.{ext}", "w").write(hdr + body)
    print(f"{ex}/wrong-{slug}.{ext}")
