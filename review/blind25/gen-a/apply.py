"""apply.py: the header and the exact-replacement helper used by make_correct.py and make_wrong.py."""

def header(kind, mistake, why, source):
    return "// kind: %s\n// mistake: %s\n// why it is wrong: %s\n// source: %s\n" % (kind, mistake, why, source)

def replace_once(text, old, new, what):
    n = text.count(old)
    if n != 1:
        raise SystemExit("%s: the text to replace occurs %d times, not once:\n%s" % (what, n, old))
    return text.replace(old, new)
