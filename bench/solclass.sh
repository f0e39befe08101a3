#!/bin/bash
# Every solution of the course handed in as a class (a student per
# exercise holding that solution alone), graded by lessons grade with no
# flags: the grade path (sandbox, write-exec rule, the witness, two GPUs for
# peer-pool, Python for Day 77) on every exercise. Each must pass.
export PATH=/usr/local/cuda/bin:$PATH
L=${LESSONS:-${1:-lessons}}; C=$(mktemp -d); O=${OUT:-/tmp}/solclass; mkdir -p $O
python3 - "$C" <<'PY'
import os, shutil, sys, tomllib
c = tomllib.load(open("course.toml", "rb"))
for x in c.get("exercise", []):
    rel = x["student"].removeprefix("exercises/")
    d = os.path.join(sys.argv[1], "sol-" + x["id"], os.path.dirname(rel))
    os.makedirs(d, exist_ok=True)
    shutil.copy(x["solution"], os.path.join(d, os.path.basename(rel)))
PY
chmod -R a+rX $C
timeout ${T:-90} $L grade $C --gradebook $O/gb.db > $O/grade.txt 2>&1; echo "grade rc=$?"
grep -vE '^\[' $O/grade.txt | grep -E "passed|failed|graded in|Time:|witness|sol-" | cut -c1-200 | head -30
(cd $O && $L grade export --gradebook gb.db > /dev/null 2>&1; $L grade feedback --gradebook gb.db --out fb > /dev/null 2>&1); ls $O
