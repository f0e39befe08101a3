"""apply.py: helpers that write a file from another by exact replacements.
Every old text must occur exactly once in the source."""
import sys


def header(kind, mistake, why, source, ext):
    c = '#' if ext == 'py' else '//'
    return f"{c} kind: {kind}\n{c} mistake: {mistake}\n{c} why it is wrong: {why}\n{c} source: {source}\n"


def replace_all(text, edits, name):
    for old, new in edits:
        n = text.count(old)
        if n != 1:
            sys.exit(f"{name}: text occurs {n} times: {old[:80]!r}")
        text = text.replace(old, new)
    return text
