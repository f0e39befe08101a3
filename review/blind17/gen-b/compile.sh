#!/bin/bash
# Compiles every file of blind17 half B in a temporary copy of its exercise's
# folder, in place of the student file; the correct files also with -Wall,-Wextra
# (any warning is reported). Run from review/blind17: bash gen-b/compile.sh
set -u
root=$(cd ../.. && pwd)
fail=0
declare -A student=(
  [stream-pools]=day087/stream_pools.cu
  [stream-ordered-pool]=day088/stream_ordered_pool.h
  [ipc-pool]=day073/ipc_pool.cu
  [graph-alloc]=day074/graph_alloc.cu
  [peer-pool]=day075/peer_pool.cu
  [heap-vs-pool]=day086/heap_vs_pool.cu
  [python-handoff]=day077/handoff.py
)
for ex in "${!student[@]}"; do
  rel=${student[$ex]}
  for f in "$ex"/*; do
    [ -f "$f" ] || continue
    tmp=$(mktemp -d)
    cp -r "$root/exercises/$(dirname "$rel")/." "$tmp/"
    cp "$f" "$tmp/$(basename "$rel")"
    case "$rel" in
      *.py) if python3 -m py_compile "$tmp/$(basename "$rel")"; then echo "ok $f"; else echo "FAIL $f"; fail=1; fi ;;
      *)
        unit="$tmp/$(basename "$rel")"
        [[ "$rel" == *.h ]] && unit="$tmp/bench.cu"
        flags=""
        [[ "$f" == */correct.* ]] && flags="-Xcompiler -Wall,-Wextra"
        out=$(cd "$tmp" && nvcc -arch=sm_90 -std=c++17 $flags -c "$unit" -o /dev/null 2>&1)
        rc=$?
        if [ $rc -ne 0 ]; then echo "FAIL $f"; echo "$out"; fail=1
        elif [[ "$f" == */correct.* ]] && echo "$out" | grep -qi warning; then echo "WARN $f"; echo "$out"; fail=1
        else echo "ok $f"; fi ;;
    esac
    rm -rf "$tmp"
  done
done
exit $fail
