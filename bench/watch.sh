#!/usr/bin/env bash
# Save-to-verdict latency of `lessons watch`, next to nvcc plus the run of
# the same file, on a machine with a GPU and nvcc.
# Usage: bench/watch.sh LESSONS_BINARY COURSE_DIR [SAVES] [DEBOUNCE]
# Each save appends a comment to the async-pipeline exercise (a real change:
# nvcc runs every time); the verdict is on screen when its "hint:" line is.
set -euo pipefail
bin=$(realpath "$1"); src=$(realpath "$2"); saves=${3:-20}; debounce=${4:-200ms}
work=$(mktemp -d); mkdir -p "$work/course"
cp -r "$src/course.toml" "$src/lessons" "$src/exercises" "$src/solutions" "$work/course/"
cd "$work/course"
export LESSONS_CACHE=$work/cache
ex=exercises/day070/async_pipeline.cu
now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
verdicts() { grep -c '^hint:' "$work/out.txt" || true; }

"$bin" watch async-pipeline --debounce "$debounce" > "$work/out.txt" 2>&1 &
pid=$!
until [ "$(verdicts)" -ge 1 ]; do sleep 0.01; done
for i in $(seq "$saves"); do
  sleep 0.3
  echo "// save $i" >> "$ex"
  t0=$(now)
  until [ "$(verdicts)" -ge $((i + 1)) ]; do sleep 0.002; done
  awk "BEGIN { print $(now) - $t0 }" >> "$work/watch"
done
kill "$pid"; wait "$pid" 2>/dev/null || true

lib=$LESSONS_CACHE/kernels/liballocstats.so
for i in $(seq "$saves"); do
  echo "// base $i" >> "$ex"
  t0=$(now)
  nvcc -arch=sm_90 -cudart shared -o "$work/prog" "$ex" && LD_PRELOAD=$lib LESSONS_STATS=$work/s.bin "$work/prog" >/dev/null
  awk "BEGIN { print $(now) - $t0 }" >> "$work/base"
done
w=$(median < "$work/watch"); b=$(median < "$work/base")
echo "save to verdict (debounce $debounce), $saves saves: $(tr '\n' ' ' < "$work/watch")"
echo "nvcc + run alone: $(tr '\n' ' ' < "$work/base")"
printf '| %s | %d | %.3f | %.3f | %.0f ms |\n' "$debounce" "$saves" "$w" "$b" "$(awk "BEGIN { print ($w - $b) * 1000 }")"
rm -rf "$work"
