#!/bin/bash
# Compiles every file of blind15b: each in a temporary copy of its
# exercise's folder, in place of the student file (a .h through the .cu
# that includes it); the correct files also with -Wall,-Wextra (no warning
# allowed). Python files with py_compile.
set -u
here=$(cd "$(dirname "$0")" && pwd)
blind=$(dirname "$here")
main=${MAIN:-/work/main}
fail=0
declare -A student=(
  [stream-pools]=exercises/day087/stream_pools.cu
  [stream-ordered-pool]=exercises/day088/stream_ordered_pool.h
  [ipc-pool]=exercises/day073/ipc_pool.cu
  [graph-alloc]=exercises/day074/graph_alloc.cu
  [peer-pool]=exercises/day075/peer_pool.cu
  [heap-vs-pool]=exercises/day086/heap_vs_pool.cu
  [python-handoff]=exercises/day077/handoff.py
)
declare -A unit=([stream-ordered-pool]=bench.cu)
for ex in "${!student[@]}"; do
  rel=${student[$ex]}
  dir=$(dirname "$rel"); base=$(basename "$rel")
  for f in "$blind/$ex"/*; do
    [ -f "$f" ] || continue
    tmp=$(mktemp -d)
    cp -r "$main/$dir/." "$tmp/"
    cp "$f" "$tmp/$base"
    if [[ $base == *.py ]]; then
      if python3 -m py_compile "$tmp/$base"; then echo "ok   $ex/$(basename "$f")"; else echo "FAIL $ex/$(basename "$f")"; fail=1; fi
    else
      cu=${unit[$ex]:-$base}
      flags=""
      [[ $(basename "$f") == correct.* ]] && flags="-Xcompiler -Wall,-Wextra"
      out=$(cd "$tmp" && nvcc -arch=sm_90 -std=c++17 $flags -c "$cu" -o /dev/null 2>&1)
      rc=$?
      if [ $rc -ne 0 ]; then echo "FAIL $ex/$(basename "$f")"; echo "$out"; fail=1
      elif [ -n "$flags" ] && [ -n "$out" ]; then echo "WARN $ex/$(basename "$f")"; echo "$out"; fail=1
      else echo "ok   $ex/$(basename "$f")"; fi
    fi
    rm -rf "$tmp"
  done
done
exit $fail
