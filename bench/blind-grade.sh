#!/bin/bash
# Grades a blind set (issue 36) as a class, as the issue graded the first
# sixty programs: lessons grade with no flags, public and hidden checks,
# each file a student holding only that file.
#   bash bench/blind-grade.sh review/blindN
#       each file of review/blindN/<exercise>/ a student named
#       EXERCISE--FILE (review/blindN/grade.sh calls this);
#   bash bench/blind-grade.sh --exercise peer-pool
#       one exercise's files of every set (review/blind*/peer-pool/), a
#       student named SET--FILE (bench/blind-exercise-class.sh).
# Run from the root of main on a GPU machine (peer-pool needs two GPUs; on
# one it is reported as not run). Writes under $OUT (/tmp/SET-out by
# default): grade.log, grades.csv, grades.json, feedback/ (hidden checks
# shown), and prints each student's result and first failed check, the
# lines bench/blind-port.py reads. SETS="block-pool ipc-pool" grades fewer
# of a set's folders; GRADE_TIMEOUT (240 s) bounds the grade; LESSONS
# names the binary (carry/lead/lessons).
set -u
usage() { echo "usage: bash bench/blind-grade.sh review/blindN | --exercise ID" >&2; exit 2; }
[ $# -ge 1 ] || usage
L=${LESSONS:-carry/lead/lessons}
export PATH=/usr/local/cuda/bin:$PATH
# exercise id and the student file's name, from course.toml
table=$(python3 -c '
import tomllib, os
for x in tomllib.load(open("course.toml", "rb")).get("exercise", []):
    print(x["id"], os.path.basename(x["student"]))')
class=$(mktemp -d)
# student NAME FILE STUDENT_FILE: a folder of the class holding one file.
student() { mkdir -p "$class/$1"; cp "$2" "$class/$1/$3"; }
exercises=""
if [ "$1" = --exercise ]; then
  [ $# -eq 2 ] || usage
  ex=$2
  file=$(awk -v ex="$ex" '$1 == ex { print $2 }' <<< "$table")
  [ -n "$file" ] || { echo "blind-grade: no exercise $ex in course.toml" >&2; exit 2; }
  exercises=$ex
  OUT=${OUT:-/tmp/$ex-class}
  for d in review/blind*/"$ex"; do
    [ -d "$d" ] || continue
    bset=$(basename "$(dirname "$d")")
    for f in "$d"/correct.* "$d"/wrong-*; do
      [ -f "$f" ] || continue
      b=$(basename "$f"); student "$bset--${b%.*}" "$f" "$file"
    done
  done
else
  here=${1%/}
  [ -d "$here" ] || { echo "blind-grade: $here is not a folder" >&2; exit 2; }
  OUT=${OUT:-/tmp/$(basename "$here")-out}
  while read -r ex file; do
    [ -d "$here/$ex" ] || continue
    case " ${SETS:-$ex} " in *" $ex "*) ;; *) continue ;; esac
    exercises="$exercises $ex"
    for f in "$here/$ex"/correct.* "$here/$ex"/wrong-*; do
      [ -f "$f" ] || continue
      b=$(basename "$f"); student "$ex--${b%.*}" "$f" "$file"
    done
  done <<< "$table"
fi
chmod -R a+rX "$class"
mkdir -p "$OUT"
book="$OUT/gradebook.db"
timeout "${GRADE_TIMEOUT:-240}" "$L" grade "$class" $exercises --gradebook "$book" > "$OUT/grade.log" 2>&1
echo "grade rc=$?" >> "$OUT/grade.log"
"$L" grade export --gradebook "$book" --csv "$OUT/grades.csv" --json "$OUT/grades.json" >> "$OUT/grade.log" 2>&1
"$L" grade feedback --gradebook "$book" --hidden show --out "$OUT/feedback" >> "$OUT/grade.log" 2>&1
for f in "$OUT"/feedback/*.md; do
  [ -f "$f" ] || continue
  s=$(basename "$f" .md)
  r=$(grep -m1 -E '^(Passed|Failed|Not run|The grader)' "$f" | cut -c1-90)
  x=$(grep -m1 '✗' "$f" | sed 's/^- //' | cut -c1-110)
  echo "$s: $r ${x}"
done
tail -5 "$OUT/grade.log"
