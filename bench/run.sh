#!/usr/bin/env bash
# Times `lessons run` against the same cells run as a plain shell script,
# cold (empty compile cache) and warm (nothing changed), on a machine with a
# GPU and nvcc. Usage: bench/run.sh LESSONS_BINARY COURSE_DIR [REPS]
# Cold means an empty compile cache (lessons cache clean), as on the first
# run of a lesson; the GPU probe kept in the cache folder stays. Prints one
# line per measurement and a table of medians.
set -euo pipefail
bin=$(realpath "$1"); course=$(realpath "$2"); reps=${3:-3}
work=$(mktemp -d); export LESSONS_CACHE=$work/cache
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }

bench_lesson() { # name, lesson, script of the same cells
  local name=$1 lesson=$2 script=$3 cold=() plain=() warm=() progs=()
  for i in $(seq "$reps"); do
    "$bin" cache clean >/dev/null; rm -rf "$work/ws" "$work/plain"; mkdir -p "$work/plain"
    t0=$(now); "$bin" --course "$course" run "$lesson" --workspace "$work/ws" >/dev/null; t1=$(now)
    cold+=("$(calc "$t1 - $t0")")
    cp "$work"/ws/*.cu "$work/plain/"
    t0=$(now); (cd "$work/plain" && bash -e -c "$script" >/dev/null); t1=$(now)
    plain+=("$(calc "$t1 - $t0")")
  done
  for i in $(seq "$reps"); do
    t0=$(now); "$bin" --course "$course" run "$lesson" --workspace "$work/ws" >/dev/null; t1=$(now)
    warm+=("$(calc "$t1 - $t0")")
    # the programs alone, already built
    t0=$(now); (cd "$work/plain" && for p in $(ls "$work/plain" | grep -v '\.cu$'); do ./"$p" >/dev/null; done); t1=$(now)
    progs+=("$(calc "$t1 - $t0")")
  done
  cells=$("$bin" --course "$course" run "$lesson" --workspace "$work/ws" | tail -1 | awk '{print $1}')
  printf '%s cold: %s | plain: %s | warm: %s | programs: %s\n' "$name" "${cold[*]}" "${plain[*]}" "${warm[*]}" "${progs[*]}"
  printf '| %s | %s | %.2f | %.2f | %.3fx | %.3f | %.3f | %.1f |\n' "$name" "$cells" \
    "$(printf '%s\n' "${cold[@]}" | median)" "$(printf '%s\n' "${plain[@]}" | median)" \
    "$(calc "$(printf '%s\n' "${cold[@]}" | median) / $(printf '%s\n' "${plain[@]}" | median)")" \
    "$(printf '%s\n' "${warm[@]}" | median)" "$(printf '%s\n' "${progs[@]}" | median)" \
    "$(calc "($(printf '%s\n' "${warm[@]}" | median) - $(printf '%s\n' "${progs[@]}" | median)) * 1000 / $cells")" >> "$work/table"
}

bench_lesson day069 69 'nvcc -o sync_vs_async sync_vs_async.cu && ./sync_vs_async
nvcc -o pool_attributes pool_attributes.cu && ./pool_attributes'
bench_lesson day068 68 'nvcc -o bump_pool bump_pool.cu && ./bump_pool'

echo
echo "| lesson | cells | cold s | plain script s | cold/plain | warm s | programs alone s | warm overhead ms/cell |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
cat "$work/table"
"$bin" cache
rm -rf "$work"
