#!/bin/bash
# compile.sh [FILE...]: checks blind22 half B's files (all of them when none
# is named). A CUDA file is compiled with nvcc (-arch=sm_90 -std=c++17 -c) in
# a temporary copy of its exercise's folder, in place of the student file
# (a .h through bench.cu); correct files also under -Xcompiler -Wall,-Wextra,
# where any warning counts as a failure. Python files: python3 -m py_compile
# (into a temporary cache directory).
cd "$(dirname "$0")/../../.." || exit 1
declare -A ST=([stream-pools]=exercises/day087/stream_pools.cu [stream-ordered-pool]=exercises/day088/stream_ordered_pool.h
  [ipc-pool]=exercises/day073/ipc_pool.cu [graph-alloc]=exercises/day074/graph_alloc.cu [peer-pool]=exercises/day075/peer_pool.cu
  [heap-vs-pool]=exercises/day086/heap_vs_pool.cu [python-handoff]=exercises/day077/handoff.py)
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  for ex in "${!ST[@]}"; do files+=(review/blind22/$ex/*); done
fi
rc=0
for f in "${files[@]}"; do
  ex=$(basename "$(dirname "$f")"); st=${ST[$ex]}
  if [[ $st == *.py ]]; then
    if PYTHONPYCACHEPREFIX=$(mktemp -d) python3 -m py_compile "$f"; then echo "ok   $f"; else echo "FAIL $f"; rc=1; fi
    continue
  fi
  tmp=$(mktemp -d); cp -r "$(dirname "$st")"/. "$tmp"/; cp "$f" "$tmp/$(basename "$st")"
  unit=$tmp/$(basename "$st"); [[ $st == *.h ]] && unit=$tmp/bench.cu
  flags=(); [[ $(basename "$f") == correct.* ]] && flags=(-Xcompiler -Wall,-Wextra)
  out=$(cd "$tmp" && nvcc -arch=sm_90 -std=c++17 "${flags[@]}" -c "$unit" -o /dev/null 2>&1); r=$?
  if [ $r -ne 0 ] || { [ ${#flags[@]} -gt 0 ] && grep -qi warning <<<"$out"; }; then
    echo "FAIL $f"; head -20 <<<"$out"; rc=1
  else
    echo "ok   $f"
  fi
  rm -rf "$tmp"
done
exit $rc
