#!/usr/bin/env python3
"""Ports a graded blind set's files into the course: each wrong file that
failed becomes a wrong answer (solutions/DAY/wrong/EXERCISE/SET_SLUG.EXT)
whose `// expect:` line is a piece of the first failure it showed, each
correct design that passed a right alternative (solutions/DAY/right/...);
a wrong file that passed or a correct one that failed is listed and left
for a judge. Then `lessons generate --wrong-patches` turns them into
patches, and `lessons verify --wrong` on a GPU must judge them as expected.

usage, from the course's root, on the output grade.sh printed (one line a
student, "NAME: Passed|Failed ... ✗ first failure"):
  SET=blind16 python3 bench/blind-port.py OUT.txt      (names EXERCISE--FILE)
  EXERCISE=peer-pool python3 bench/blind-port.py OUT.txt (names SET--FILE,
      bench/blind-exercise-class.sh's output)
SKIP="NAME ..." leaves students out."""
import os, re, sys, tomllib
course = tomllib.load(open("course.toml", "rb"))
exinfo = {x["id"]: x for x in course["exercise"]}
skip = set(os.environ.get("SKIP", "").split())
exercise_fixed = os.environ.get("EXERCISE")
blindset = os.environ.get("SET")
made = []
for line in open(sys.argv[1]):
    m = re.match(r"^(\S+?)--(\S+): (Passed|Failed)[^✗]*(?:✗ (.*))?$", line.rstrip())
    if not m:
        if re.match(r"^\S+?--\S+: ", line):
            print("SKIP not graded (for a judge):", line.rstrip())
        continue
    a, fname, result, fail = m.groups()
    if exercise_fixed: ex, bset = exercise_fixed, a
    else: ex, bset = a, blindset
    if f"{bset}--{fname}" in skip or f"{ex}--{fname}" in skip: continue
    x = exinfo[ex]
    day = os.path.basename(os.path.dirname(x["solution"])); ext = os.path.splitext(x["student"])[1]
    src = f"review/{bset}/{ex}/{fname}{ext}"
    slug = fname.removeprefix("wrong-").replace("-", "_")
    setname = bset if bset != "blind" else "blind"
    correct = fname == "correct"
    kind = "right" if correct else "wrong"
    if not correct and result != "Failed": 
        print("SKIP passing wrong", src); continue
    if correct and result != "Passed":
        print("SKIP failing correct", src); continue
    d = f"solutions/{day}/{kind}/{ex}"
    os.makedirs(d, exist_ok=True)
    name = f"{setname}_{slug}"
    if any(os.path.splitext(f)[0] == name for f in os.listdir(d)): continue
    body = open(src).read()
    if not correct:
        if not fail:
            print("SKIP failed with no failed check shown (for a judge):", src); continue
        t = fail.strip()
        t = re.sub(r"^\\\[[^\]]*\\\] ", "", t)
        t = t.replace("\\", "")
        if t.startswith("output matches"):
            # keep the literal words after the last group
            words = re.sub(r"\([^)]*\)", " ", t[len("output matches "):])
            words = re.sub(r"[\[\]\^\*\?\+\|\$\\]", " ", words)
            parts = [p.strip() for p in re.split(r"\s{2,}", words) if len(p.strip()) > 6]
            t = max(parts, key=len) if parts else t
        elif t.startswith("prints "):
            t = t[len("prints "):].strip('"')
        else:
            t = t.split(": exactly")[0].split(": at most")[0].split(": at least")[0].split(": equal to")[0]
        t = t.strip(" .:").split(",")[0]
        body = f"// expect: {t}\n" + body  # the first line of every wrong answer, .py too
    open(f"{d}/{name}{ext}", "w").write(body)
    made.append((f"{d}/{name}{ext}", t if not correct else "(right)"))
for f, t in made: print(f, "|", t)
