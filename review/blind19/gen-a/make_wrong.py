#!/usr/bin/env python3
"""make_wrong.py: writes every wrong file of blind19's first half from its
exercise's correct file: the correct file's header replaced by the wrong
file's four lines, then ONE edit (sometimes a few lines that make one
mistake) applied; each edit must match exactly once.
usage: python3 gen-a/make_wrong.py  (from review/blind19)"""
import os, sys, importlib.util
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location("wrongs", os.path.join(HERE, "wrongs.py"))
W = importlib.util.module_from_spec(spec); spec.loader.exec_module(W)
for w in W.WRONGS:
    ex, slug = w["ex"], w["slug"]
    ext = ".h" if ex == "pool-resource" else ".cu"
    src = open(os.path.join(ROOT, ex, "correct" + ext)).read()
    lines = src.split("\n")
    assert lines[0].startswith("// kind: correct"), ex
    body = "\n".join(lines[4:])
    for old, new in w["edits"]:
        n = body.count(old)
        if n != 1:
            sys.exit(f"{ex}/{slug}: edit matches {n} times: {old[:60]!r}")
        body = body.replace(old, new)
    hdr = (f"// kind: wrong ({w['where']})\n// mistake: {w['mistake']}\n"
           f"// why it is wrong: {w['why']}\n// source: {w['source']}\n")
    open(os.path.join(ROOT, ex, f"wrong-{slug}{ext}"), "w").write(hdr + body)
    print("wrote", ex, slug)
