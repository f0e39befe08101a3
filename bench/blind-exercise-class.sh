#!/bin/bash
# Every blind set's files of one exercise (review/blind*/$EX, EX=peer-pool by
# default) graded as one class, on a machine with the GPUs it needs;
# writes under $OUT as review/blind14/grade.sh does, names SET--FILE.
set -u
OUT=${OUT:-/tmp/peerclass}
L=${LESSONS:-carry/lead/lessons}
export PATH=/usr/local/cuda/bin:$PATH
class=$(mktemp -d)
file=$(python3 -c '
import tomllib, os
for x in tomllib.load(open("course.toml", "rb")).get("exercise", []):
    if x["id"] == os.environ.get("EX", "peer-pool"): print(os.path.basename(x["student"]))')
for d in review/blind*/${EX:-peer-pool}; do
  set=$(basename $(dirname $d))
  for f in $d/correct.* $d/wrong-*; do
    b=$(basename "$f"); s="$set--${b%.*}"
    mkdir -p "$class/$s"; cp "$f" "$class/$s/$file"
  done
done
chmod -R a+rX "$class"
mkdir -p "$OUT"
book="$OUT/gradebook.db"
timeout ${GRADE_TIMEOUT:-240} "$L" grade "$class" ${EX:-peer-pool} --gradebook "$book" > "$OUT/grade.log" 2>&1
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
