#!/bin/bash
# The attacks on Day 76's pool-resource, graded on a GPU by the real
# grader. Run from the repository root: bash carry/attack/run.sh
# (or bash review/attack/header-main/run.sh; LESSONS=path/to/lessons)
#   trudy:  the stub's TODOs undone; its header defines main and renames
#           the harness's (#define main harness_main): passes if it prints
#           and calls what the checks read (the door still open)
#   trudy2: the stub's header and a pool_resource.cu of her own (the
#           harness replaced): must now be graded on the exercise's own
#           harness (fixed), so fail as the stub does
#   trudy3: the stub's TODOs undone; a static object's constructor in
#           the header does the work the checks read and calls exit(0)
#           before the harness's main: its public checks pass (its hidden
#           run of 5 rounds fails: it prints 8)
#   stub:   the stub as handed out: fails
#   honest: the solution: passes
set -u
D=$(cd "$(dirname "$0")" && pwd)
H=$D/header_main.h; [ -f "$H" ] || H=$D/pool_resource.h
OUT=${OUT:-/tmp/attack-out}
mkdir -p "$OUT"
L=${LESSONS:-carry/lead/lessons}
W=$(mktemp -d)
for s in trudy trudy2 trudy3 stub honest; do mkdir -p "$W/class/$s/day076"; done
cp "$H" "$W/class/trudy/day076/pool_resource.h"
cp exercises/day076/pool_resource.h "$W/class/trudy2/day076/pool_resource.h"
cp "$D/header_ctor.h" "$W/class/trudy3/day076/pool_resource.h"
cp "$D/forged_harness.cu" "$W/class/trudy2/day076/pool_resource.cu"
cp exercises/day076/pool_resource.h "$W/class/stub/day076/pool_resource.h"
cp solutions/day076/pool_resource.h "$W/class/honest/day076/pool_resource.h"
timeout 100 "$L" grade "$W/class" pool-resource --gradebook "$W/gb.db" >"$OUT/grade.txt" 2>&1
echo "grade exit: $?" >>"$OUT/grade.txt"
"$L" grade export --gradebook "$W/gb.db" --csv "$OUT/grades.csv" --json "$OUT/grades.json" >>"$OUT/grade.txt" 2>&1
"$L" grade feedback --gradebook "$W/gb.db" --out "$OUT/feedback" >>"$OUT/grade.txt" 2>&1
cat "$OUT/grade.txt"; cat "$OUT/grades.csv"
