#!/bin/bash
# Day 77 on the GPU machine: the solution's check, verify --wrong (10
# wrong answers, 2 right), verify (the lesson's cells, solution passes,
# student file fails), in a course trimmed to Day 77 (tree/course.toml).
D=$(cd "$(dirname "$0")" && pwd); cd $D/tree
export PATH=/usr/local/cuda/bin:$PATH
L=$D/lessons
{ echo "== check solution"; timeout 60 $L check python-handoff --file solutions/day077/handoff.py -v; echo "rc=$?"; } > $OUT/more.log 2>&1
t=$(date +%s)
{ echo "== verify --wrong"; timeout 120 $L verify --wrong; echo "rc=$? $(( $(date +%s)-t ))s"; } > $OUT/wrong.log 2>&1
t=$(date +%s)
{ echo "== verify"; timeout 120 $L verify; echo "rc=$? $(( $(date +%s)-t ))s"; } > $OUT/verify.log 2>&1
