#!/usr/bin/env bash
# Issue 44, second GPU call: the course-sized class (bench/bigclass) on 4
# GPUs: BIG_N students × the course's 12 exercises, killed with kill -9 a
# third of the way (KILL=1) and graded again, every grade checked.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/out}; mkdir -p "$out"
n=${BIG_N:-60}
kill=()
[ "${KILL:-0}" = 1 ] && kill=(KILL_AFTER=$((n * 12 / 3)))
t0=$(date +%s)
(env "${kill[@]}" BIGCLASS=$here/bigclass timeout "${BIG_LIMIT:-400}" bash tree/bench/bigclass.sh ./lessons tree "$n") > "$out/bigclass.txt" 2>&1
echo "wall of the step: $(( $(date +%s) - t0 )) s" >> "$out/bigclass.txt"
w=$(sed -n 's/^made in .* s: //p' "$out/bigclass.txt" | tail -1)
if [ -n "$w" ] && [ -f "$w/gradebook.db" ]; then
  ./bigclass check -out "$w" >> "$out/bigclass.txt" 2>&1 || true
  python3 - "$w/gradebook.db" >> "$out/bigclass.txt" 2>&1 <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for x, n, ms in db.execute("SELECT exercise, count(*), avg(run_ms) FROM grades WHERE status != 'missing' GROUP BY exercise ORDER BY exercise"):
    print(f"  {x:20} {n:5} graded, program time {ms or 0:7.0f} ms on average")
PY
fi
