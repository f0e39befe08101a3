#!/usr/bin/env bash
# Save-to-verdict latency of `lessons watch`, next to nvcc plus the run of
# the same file, on a machine with a GPU and nvcc.
# Usage: bench/watch.sh LESSONS_BINARY COURSE_DIR [SAVES] [DEBOUNCE]
# Each save appends a comment to the async-pipeline exercise (a real change:
# nvcc runs every time); the verdict is on screen when its "hint:" line is.
# Saves and baselines alternate, pair by pair, so that both see the same
# machine: after each verdict, nvcc plus the run of the same file (copied
# elsewhere, with the statistics library preloaded as check does) is timed
# while watch sits idle.
set -euo pipefail
bin=$(realpath "$1"); src=$(realpath "$2"); saves=${3:-20}; debounce=${4:-200ms}
work=$(mktemp -d); mkdir -p "$work/course"
cp -r "$src/course.toml" "$src/lessons" "$src/exercises" "$src/solutions" "$work/course/"
cd "$work/course"
export LESSONS_CACHE=$work/cache
ex=exercises/day069/async_pipeline.cu
now() { echo "$EPOCHREALTIME"; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# The verdict's time is taken as its line reaches the terminal's place: a
# reader stamps each line of watch's output as it arrives, so how often this
# script looks for it does not count.
verdicts() { grep -c ' hint:' "$work/out.txt" || true; }
stamp() { while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done; }

"$bin" watch async-pipeline --debounce "$debounce" 2>&1 < /dev/null | stamp > "$work/out.txt" &
pid=$!
until [ "$(verdicts)" -ge 1 ]; do sleep 0.01; done
lib=$LESSONS_CACHE/kernels/liballocstats.so
mkdir -p "$work/base"
for i in $(seq "$saves"); do
  sleep 0.3
  echo "// save $i" >> "$ex"
  t0=$(now)
  until [ "$(verdicts)" -ge $((i + 1)) ]; do sleep 0.02; done
  t1=$(grep ' hint:' "$work/out.txt" | sed -n "$((i + 1))p" | cut -d' ' -f1)
  awk "BEGIN { print $t1 - $t0 }" >> "$work/watch"
  cp "$ex" "$work/base/prog.cu"
  t0=$(now)
  (cd "$work/base" && nvcc -arch=sm_90 -cudart shared -o prog prog.cu && LD_PRELOAD=$lib LESSONS_STATS=s.bin ./prog >/dev/null)
  awk "BEGIN { print $(now) - $t0 }" >> "$work/base.txt"
done
pkill -f "$bin watch async-pipeline" 2>/dev/null || true; wait "$pid" 2>/dev/null || true

w=$(median < "$work/watch"); b=$(median < "$work/base.txt")
echo "save to verdict (debounce $debounce), $saves saves: $(tr '\n' ' ' < "$work/watch")"
echo "nvcc + run alone: $(tr '\n' ' ' < "$work/base.txt")"
paste "$work/watch" "$work/base.txt" | awk '{ print ($1 - $2) * 1000 }' | median | xargs printf 'median of the pairwise differences: %.0f ms\n'
printf '| %s | %d | %.3f | %.3f | %.0f ms |\n' "$debounce" "$saves" "$w" "$b" "$(awk "BEGIN { print ($w - $b) * 1000 }")"
rm -rf "$work"
