#!/bin/bash
# Grades the seventeenth blind set (issue 36) as a class, as review/blind/grade.sh
# grades the first: lessons grade with no flags, public and hidden checks,
# each file of review/blind17/<exercise>/ a student holding only that file.
# Run from the root of main on a GPU machine (peer-pool needs two GPUs; on
# one it is reported as not run). Writes under $OUT: grade.log, grades.csv,
# grades.json, feedback/ (hidden checks shown), and prints each student's
# result and first failed check. SETS="block-pool ipc-pool" grades fewer
# folders; GRADE_TIMEOUT (240 s) bounds the grade.
set -u
OUT=${OUT:-/tmp/blind17-out}
L=${LESSONS:-carry/lead/lessons}
export PATH=/usr/local/cuda/bin:$PATH
here=review/blind17
class=$(mktemp -d)
exercises=""
# exercise id and the student file's name, from course.toml
table=$(python3 -c '
import tomllib, os
for x in tomllib.load(open("course.toml", "rb")).get("exercise", []):
    print(x["id"], os.path.basename(x["student"]))')
while read -r ex file; do
  [ -d "$here/$ex" ] || continue
  case " ${SETS:-$ex} " in *" $ex "*) ;; *) continue ;; esac
  exercises="$exercises $ex"
  for f in "$here/$ex"/correct.* "$here/$ex"/wrong-*; do
    b=$(basename "$f"); s="$ex--${b%.*}"
    mkdir -p "$class/$s"; cp "$f" "$class/$s/$file"
  done
done <<< "$table"
chmod -R a+rX "$class"
mkdir -p "$OUT"
book="$OUT/gradebook.db"
timeout ${GRADE_TIMEOUT:-240} "$L" grade "$class" $exercises --gradebook "$book" > "$OUT/grade.log" 2>&1
echo "grade rc=$?" >> "$OUT/grade.log"
"$L" grade export --gradebook "$book" --csv "$OUT/grades.csv" --json "$OUT/grades.json" >> "$OUT/grade.log" 2>&1
"$L" grade feedback --gradebook "$book" --hidden show --out "$OUT/feedback" >> "$OUT/grade.log" 2>&1
for f in "$OUT"/feedback/*.md; do
  s=$(basename "$f" .md)
  r=$(grep -m1 -E '^(Passed|Failed|Not run|The grader)' "$f" | cut -c1-90)
  x=$(grep -m1 '✗' "$f" | sed 's/^- //' | cut -c1-110)
  echo "$s: $r ${x}"
done
tail -5 "$OUT/grade.log"
