#!/usr/bin/env bash
# Issue 44, first GPU call: CUDA starts a second (1/2/4 GPUs × 1/4/8 at
# once, NVML polled or not), then the generated class (3 per kind: 84
# students, 252 grades) on 4 GPUs with the new choice, on 1 GPU, and on 4
# GPUs at the old 16 a GPU (64 at once), each cold.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
{ nvidia-smi -L; nproc; uptime; } > "$out/machine.txt" 2>&1
(timeout 75 bash tree/bench/cudastarts.sh 4) > "$out/starts.txt" 2>&1
cls() { # name, then env for class.sh
  local name=$1; shift
  local t0; t0=$(date +%s)
  (env "$@" MODE=grade WARM=0 timeout 125 bash tree/bench/class.sh ./lessons tree 3) > "$out/$name.txt" 2>&1
  echo "wall of the step: $(( $(date +%s) - t0 )) s" >> "$out/$name.txt"
  local w; w=$(sed -n 's/^work folder: //p' "$out/$name.txt" | tail -1)
  [ -z "$w" ] && w=$(ls -dt /tmp/class.* 2>/dev/null | head -1)
  {
    echo "--- grade's stderr (start and time lines):"; grep -v '^\[' "$w/grade-cold.err" | head -8
    python3 - "$w/gradebook.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("SELECT count(*) FROM grades").fetchone()[0]
notes = db.execute("SELECT student, exercise, status, note FROM grades WHERE note != ''").fetchall()
print(f"grades: {n}; graded on a second run alone: {len(notes)}; attempts: {db.execute('SELECT count(*) FROM attempts').fetchone()[0]}")
for s, x, st, note in notes[:4]:
    print(f"  {s} {x} {st}: {note[:300]}")
rev = db.execute("SELECT count(*) FROM grades WHERE review LIKE '%even alone%'").fetchone()[0]
print(f"stalled even alone: {rev}")
PY
  } >> "$out/$name.txt" 2>&1
  rm -rf "$w"
}
cls class4new
cls class1 CUDA_VISIBLE_DEVICES=0
cls class4old GRADE_FLAGS="--per-gpu 16"
