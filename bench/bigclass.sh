#!/usr/bin/env bash
# A class at the size of a real course: STUDENTS students × every exercise
# of the course (bench/bigclass makes it: the solution, its correct
# alternatives, the untouched file, nothing, a compile error, every wrong
# answer of solutions/*/wrong, the hostile programs of bench/class and the
# forgers of the statistics record), graded cold with lessons grade, then
# every grade checked against what the file was made to get, and the
# gradebook for grades lost or recorded twice.
# Usage: bench/bigclass.sh LESSONS_BINARY COURSE_DIR [STUDENTS]
# MODE=generate only makes the class (and prints its folder);
# KILL_AFTER=N kills the grader with kill -9 once N grades are in the
# gradebook, then grades again (it resumes) before the check;
# FAKE=1 grades the class on a machine without a GPU: a course of its own
# with the course's exercises by name and fake programs that pass or fail
# (LESSONS_GPU, a fake nvcc), to test the grader at that size;
# GRADE_FLAGS are passed to lessons grade; BIGCLASS is the bigclass binary
# (default: go run ./bench/bigclass, from the course's folder).
set -euo pipefail
bin=$(realpath "$1"); course=$(realpath "$2"); n=${3:-100}
work=$(mktemp -d /tmp/bigclass.XXXXXX); chmod 755 "$work"
export LESSONS_CACHE=$work/cache
now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
bigclass() {
  if [ -n "${BIGCLASS:-}" ]; then "$BIGCLASS" "$@"; else (cd "$course" && go run ./bench/bigclass "$@"); fi
}

fake=()
[ "${FAKE:-0}" = 1 ] && fake=(-fake)
t0=$(now)
bigclass gen -course "$course" -out "$work" -n "$n" "${fake[@]}"
t1=$(now)
echo "made in $(calc "$t1 - $t0") s: $work"
[ "${MODE:-grade}" = generate ] && exit 0

grading=$course
if [ "${FAKE:-0}" = 1 ]; then
  grading=$work/course
  export PATH=$work/bin:$PATH LESSONS_GPU='Fake GPU,9.0,85899345920'
  export LESSONS_SANDBOX_USERS=${LESSONS_SANDBOX_USERS:-off} LESSONS_SANDBOX_READ=$work/bin:/usr/bin:/bin
fi
book=$work/gradebook.db
grade() { # exec: the grader itself is the job that kill -9 stops
  exec "$bin" --course "$grading" grade "$work/subs" --gradebook "$book" ${GRADE_FLAGS:-} "$@"
}
count() { # grades in the gradebook now (0 before it is made)
  "$bin" --course "$grading" grade export --gradebook "$book" --csv "" --json - 2>/dev/null | grep -c '"status"' || true
}

t0=$(now)
killed=0
if [ -n "${KILL_AFTER:-}" ]; then
  grade >"$work/grade-killed.txt" 2>&1 &
  pid=$!
  # Wait for the grades, not for a time: the grader's pace is the machine's.
  while kill -0 "$pid" 2>/dev/null && [ "$(count)" -lt "$KILL_AFTER" ]; do sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null && killed=$(count)
  wait "$pid" 2>/dev/null || true
  echo "killed with kill -9 after $killed grades (of $(wc -l < "$work/expected.tsv"))"
fi
(grade) >"$work/grade.txt" 2>"$work/grade.err" || echo "grade exited $?"
t1=$(now)
grep -v '^\[' "$work/grade.err" | head -8 || true
tail -2 "$work/grade.txt"
echo "graded in $(calc "$t1 - $t0") s (${n} students × the course's exercises$([ "$killed" != 0 ] && echo ", killed once and resumed"))"
bigclass check -out "$work" -gradebook "$book"
echo "work folder: $work"
