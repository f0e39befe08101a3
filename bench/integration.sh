#!/usr/bin/env bash
# The lead's integration run on a GPU machine, after a session's merges:
# the course (verify, mutants, wrong answers), the generated class graded
# as root and as nobody, and optionally the class server's load test.
# Usage: bench/integration.sh LESSONS_BINARY [CLASSLOAD_BINARY]
# Run from the course's folder (a `git archive` of main); logs go under
# $OUT (default /tmp/integration). CLASSLOAD_BINARY (go build
# ./bench/classload) adds N=${N:-60} students for ${DUR:-300s}, then
# 20 students for 40 s with the server killed (kill -9) half-way.
set -uo pipefail
L=$(realpath "$1"); CL=${2:+$(realpath "$2")}; T=$(pwd)
OUT=${OUT:-/tmp/integration}; mkdir -p "$OUT"
s() { echo "== $*"; local t0=$EPOCHREALTIME; "$@"; local rc=$?; echo "== rc=$rc $(awk "BEGIN{printf \"%.1f s\", $EPOCHREALTIME-$t0}")"; }
s "$L" verify > "$OUT/verify.txt" 2>&1; tail -2 "$OUT/verify.txt"
s "$L" verify --mutants > "$OUT/mutants.txt" 2>&1; tail -2 "$OUT/mutants.txt"
s "$L" verify --wrong > "$OUT/wrong.txt" 2>&1; tail -2 "$OUT/wrong.txt"
keep='as generated|graded in|reached outside|hostile reads|leftover|cgroups left'
s env MODE=grade WARM=0 bash bench/class.sh "$L" . 1 > "$OUT/class-root.txt" 2>&1
grep -E "$keep" "$OUT/class-root.txt"
if [ "$(id -u)" = 0 ]; then
  # The same class graded by a grader that is not root.
  rm -rf /tmp/integration-tree && cp -r "$T" /tmp/integration-tree && chmod -R a+rwX /tmp/integration-tree
  cp "$L" /tmp/integration-lessons && chmod 755 /tmp/integration-lessons
  (cd /tmp/integration-tree && s setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp MODE=grade WARM=0 \
    bash bench/class.sh /tmp/integration-lessons . 1 > "$OUT/class-nobody.txt" 2>&1)
  grep -E "$keep" "$OUT/class-nobody.txt"
fi
if [ -n "$CL" ]; then
  # bench/classload/gpu.sh expects lessons, classload and tree/ beside it.
  d=$(mktemp -d); ln -s "$L" "$d/lessons"; ln -s "$CL" "$d/classload"; ln -s "$T" "$d/tree"
  cp bench/classload/gpu.sh "$d/gpu.sh"
  N=${N:-60} DUR=${DUR:-300s} OUT=$OUT bash "$d/gpu.sh" > "$OUT/classload-all.txt" 2>&1; tail -12 "$OUT/classload-all.txt"
  # kill -9 in the middle of a shorter load, restarted, checked: nothing
  # acknowledged lost (classload -verify).
  N=20 DUR=40s KILL=1 OUT=$OUT bash "$d/gpu.sh" > "$OUT/classload-kill-all.txt" 2>&1; grep -E '^(kill -9|at the kill|restarted|classload rc|verify|  lost|audit)' "$OUT/classload-kill-all.txt"
fi
