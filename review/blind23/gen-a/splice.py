#!/usr/bin/env python3
"""splice.py STUDENT START END BODY OUT HEADER: writes OUT as the student
file with the text from the line starting with START up to and including
the line starting with END (through the function's closing brace) replaced by the file BODY, and the four-line
HEADER file put on top. Used to write each correct file from its
exercise's student file and the parts written for it."""
import sys
student, start, end, body, out, header = sys.argv[1:7]
lines = open(student).read().split('\n')
i = next(k for k, l in enumerate(lines) if l.startswith(start))
j = next(k for k, l in enumerate(lines) if k >= i and l.startswith(end))
if not lines[j].rstrip().endswith('}'):   # a function's opening line: up to its closing brace
    j = next(k for k in range(j, len(lines)) if lines[k] == '}')
new = lines[:i] + open(body).read().rstrip('\n').split('\n') + lines[j + 1:]
open(out, 'w').write(open(header).read().rstrip('\n') + '\n' + '\n'.join(new))
