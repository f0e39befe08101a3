#!/usr/bin/env bash
# Cold grades of one generated class (bench/class.sh's) under several
# settings, each with an empty compile cache, a new gradebook and a trace.
# Usage: bench/class-configs.sh LESSONS_BINARY COURSE_DIR TRACE_DIR "FLAGS" ["FLAGS"...]
#   e.g. bench/class-configs.sh bin/lessons . /tmp/traces "--per-gpu 1" "--per-gpu 8 --gpu-queues 2"
# Each trace (TRACE_DIR/traceN.json) opens in ui.perfetto.dev;
# bench/trace-summary.py prints where the time went.
set -uo pipefail
bin=$(realpath "$1"); course=$(realpath "$2"); traces=$(realpath -m "$3"); shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$traces"
work=$(MODE=generate bash "$here/class.sh" "$bin" "$course" 4 | tail -1)
echo "class: $work/subs"
export LESSONS_CACHE=$work/cache
i=0
for flags in "$@"; do
  i=$((i + 1))
  "$bin" cache clean >/dev/null
  s=$EPOCHREALTIME
  # shellcheck disable=SC2086 # flags are words
  "$bin" --course "$course" grade "$work/subs" block-pool async-pipeline vmm-growable \
    --gradebook "$work/gradebook$i.db" $flags --trace "$traces/trace$i.json" >"$work/out$i.txt" 2>&1
  e=$EPOCHREALTIME
  echo "$i [$flags]: $(awk "BEGIN { printf \"%.1f\", $e - $s }") s; $(grep -E '^[0-9]+ graded' "$work/out$i.txt")"
done
