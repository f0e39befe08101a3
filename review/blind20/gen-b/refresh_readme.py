#!/usr/bin/env python3
"""refresh_readme.py: writes review/blind20/README-B.md from its head,
the correct-design table, the notes, the wrong-file table and its tail
(gen-b/README-B.*.md and gen-b/tables.md, made by tables.py)."""
import os
here = os.path.dirname(os.path.abspath(__file__))
read = lambda f: open(os.path.join(here, f)).read()
designs, wrongs = read("tables.md").split("\n\n", 1)
text = read("README-B.head.md") + designs + "\n" + read("README-B.notes.md") + wrongs + read("README-B.tail.md")
open(os.path.join(here, "..", "README-B.md"), "w").write(text)
print(len(text.split("\n")), "lines")
