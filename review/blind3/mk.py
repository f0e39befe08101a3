# mk.py: build a blind file from a student file by exact replacements.
# usage: from mk import build; build(src, dst, header, [(old,new),...])
import sys
def sub(text, pairs):
    for old, new in pairs:
        if text.count(old) != 1:
            sys.exit("edit does not match once (%d): %r" % (text.count(old), old[:80]))
        text = text.replace(old, new)
    return text
def build(src_text, dst, header, pairs, comment="//"):
    body = sub(src_text, pairs)
    head = "".join(comment + " " + l + "\n" if l else comment + "\n" for l in header.strip("\n").split("\n"))
    open(dst, "w").write(head + body)
    return body
