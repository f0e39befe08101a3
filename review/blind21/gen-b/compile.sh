#!/bin/bash
# Compiles every CUDA file of blind21 half B (or of the exercises named) in a
# temporary copy of its exercise's folder, in place of the student file;
# correct files also under -Wall,-Wextra (no warning allowed). Python: py_compile.
cd "$(dirname "$0")/../../.." || exit 1
declare -A STUDENT=([stream-pools]=exercises/day087/stream_pools.cu [stream-ordered-pool]=exercises/day088/stream_ordered_pool.h
  [ipc-pool]=exercises/day073/ipc_pool.cu [graph-alloc]=exercises/day074/graph_alloc.cu [peer-pool]=exercises/day075/peer_pool.cu
  [heap-vs-pool]=exercises/day086/heap_vs_pool.cu [python-handoff]=exercises/day077/handoff.py)
exs=("$@"); [ ${#exs[@]} -eq 0 ] && exs=(stream-pools stream-ordered-pool ipc-pool graph-alloc peer-pool heap-vs-pool python-handoff)
rc=0
for ex in "${exs[@]}"; do
  st=${STUDENT[$ex]}
  for f in review/blind21/$ex/*; do
    if [[ $st == *.py ]]; then
      python3 -c "import sys; compile(open(sys.argv[1]).read(), sys.argv[1], \"exec\")" "$f" >/dev/null 2>&1 && echo "ok   $f" || { echo "FAIL $f"; rc=1; }
      continue
    fi
    tmp=$(mktemp -d); cp -r "$(dirname $st)"/. "$tmp"/; cp "$f" "$tmp/$(basename $st)"
    unit=$tmp/$(basename $st); [[ $st == *.h ]] && unit=$tmp/bench.cu
    flags=""; [[ $(basename $f) == correct.* ]] && flags="-Xcompiler -Wall,-Wextra"
    out=$(cd $tmp && nvcc -arch=sm_90 -std=c++17 $flags -c "$unit" -o /dev/null 2>&1); r=$?
    if [ $r -ne 0 ] || { [ -n "$flags" ] && echo "$out" | grep -qi warning; }; then echo "FAIL $f"; echo "$out" | head -20; rc=1; else echo "ok   $f"; fi
    rm -rf "$tmp"
  done
done
exit $rc
