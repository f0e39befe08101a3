#!/bin/bash
# Compiles half B's files: CUDA files with nvcc 11.8 (-arch=sm_90 -std=c++17 -c)
# in a temporary copy of the exercise's folder with the file in place of the
# student file (correct files also with -Xcompiler -Wall,-Wextra, no warning
# allowed); Python files with py_compile. Args: exercises (default: all).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(cd "$here/.." && pwd)
declare -A STUDENT=(
  [stream-pools]=exercises/day087/stream_pools.cu
  [stream-ordered-pool]=exercises/day088/stream_ordered_pool.h
  [ipc-pool]=exercises/day073/ipc_pool.cu
  [graph-alloc]=exercises/day074/graph_alloc.cu
  [peer-pool]=exercises/day075/peer_pool.cu
  [heap-vs-pool]=exercises/day086/heap_vs_pool.cu
  [python-handoff]=exercises/day077/handoff.py
)
exs=("$@"); [ ${#exs[@]} -eq 0 ] && exs=(stream-pools stream-ordered-pool ipc-pool graph-alloc peer-pool heap-vs-pool python-handoff)
ok=0; bad=0
for ex in "${exs[@]}"; do
  [ -d "$out/$ex" ] || continue
  st=${STUDENT[$ex]}
  for f in "$out/$ex"/*; do
    tmp=$(mktemp -d)
    cp -r "$root/$(dirname "$st")/." "$tmp/"
    cp "$f" "$tmp/$(basename "$st")"
    case "$st" in
      *.py) cmd=(python3 -m py_compile "$tmp/$(basename "$st")") ;;
      *.h) cmd=(/usr/bin/nvcc -arch=sm_90 -std=c++17 -c "$tmp/bench.cu" -o "$tmp/x.o") ;;
      *) cmd=(/usr/bin/nvcc -arch=sm_90 -std=c++17 -c "$tmp/$(basename "$st")" -o "$tmp/x.o") ;;
    esac
    case "$(basename "$f")" in
      correct.*) [[ "$st" != *.py ]] && cmd+=(-Xcompiler -Wall,-Wextra) ;;
    esac
    log=$( (cd "$tmp" && "${cmd[@]}") 2>&1 ); rc=$?
    if [ $rc -ne 0 ] || { [[ "$(basename "$f")" == correct.* ]] && [ -n "$log" ]; }; then
      echo "FAIL $ex/$(basename "$f")"; echo "$log" | head -20; bad=$((bad+1))
    else
      echo "ok   $ex/$(basename "$f")"; ok=$((ok+1))
    fi
    rm -rf "$tmp"
  done
done
echo "$ok ok, $bad failed"
[ $bad -eq 0 ]
