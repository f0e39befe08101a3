#!/usr/bin/env python3
# Makes a wrong file from its folder's correct file and one edit: the
# header's four lines replaced, then each (old, new) pair replaced once
# (old must occur exactly once). Usage: imported by the per-exercise
# scripts beside it (wrong_<exercise>.py). Run from the repository root.
import os, sys

def make(ex, correct, slug, mistake, why, source, edits):
    d = f"review/blind14/{ex}"
    src = open(f"{d}/{correct}").read().split("\n")
    ext = correct.rsplit(".", 1)[1]
    body = "\n".join(src[4:])
    for old, new in edits:
        n = body.count(old)
        if n != 1:
            sys.exit(f"{ex}/{slug}: {n} matches for {old[:60]!r}")
        body = body.replace(old, new)
    head = [f"// kind: wrong", f"// mistake: {mistake}", f"// why it is wrong: {why}", f"// source: {source}"]
    open(f"{d}/wrong-{slug}.{ext}", "w").write("\n".join(head) + "\n" + body)
