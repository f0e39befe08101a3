#!/bin/bash
# compile.sh [EXERCISE [FILE...]]: compiles blind27's second half as
# review/blind27/README-B.md says. With no argument, every file of the
# seven exercises; with an exercise and no file, its five files. Each CUDA
# file goes in place of the student file in a temporary copy of the
# exercise's folder (the spec is copied with the folder, not read) and is
# compiled with nvcc -arch=sm_90 -std=c++17 -c (the correct files also
# with -Xcompiler -Wall,-Wextra, which must print nothing); Python files
# with python3 -m py_compile.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
here="$root/review/blind27"
NVCC=${NVCC:-/usr/bin/nvcc}
declare -A dir=([stream-pools]=day087 [stream-ordered-pool]=day088 [ipc-pool]=day073 [graph-alloc]=day074
                [peer-pool]=day075 [heap-vs-pool]=day086 [python-handoff]=day077)
declare -A student=([stream-pools]=stream_pools.cu [stream-ordered-pool]=stream_ordered_pool.h [ipc-pool]=ipc_pool.cu
                    [graph-alloc]=graph_alloc.cu [peer-pool]=peer_pool.cu [heap-vs-pool]=heap_vs_pool.cu [python-handoff]=handoff.py)
declare -A unit=([stream-ordered-pool]=bench.cu)
exercises=(stream-pools stream-ordered-pool ipc-pool graph-alloc peer-pool heap-vs-pool python-handoff)
[ $# -ge 1 ] && exercises=("$1") && shift
fail=0; ok=0
for ex in "${exercises[@]}"; do
  if [ $# -ge 1 ]; then files=("$@"); else files=("$here/$ex"/correct.* "$here/$ex"/wrong-*); fi
  for f in "${files[@]}"; do
    [ -f "$f" ] || f="$here/$ex/$f"
    tmp=$(mktemp -d)
    cp -r "$root/exercises/${dir[$ex]}/." "$tmp/"
    cp "$f" "$tmp/${student[$ex]}"
    name=$(basename "$f")
    if [ "$ex" = python-handoff ]; then
      out=$(python3 -m py_compile "$tmp/${student[$ex]}" 2>&1); rc=$?
    else
      src=${unit[$ex]:-${student[$ex]}}
      flags=(-arch=sm_90 -std=c++17 -c -o "$tmp/a.o")
      case "$name" in correct.*) flags+=(-Xcompiler -Wall,-Wextra);; esac
      out=$(cd "$tmp" && "$NVCC" "${flags[@]}" "$src" 2>&1); rc=$?
      case "$name" in correct.*) [ -n "$out" ] && rc=1;; esac
    fi
    if [ $rc -eq 0 ]; then ok=$((ok+1)); echo "ok   $ex/$name"; else fail=$((fail+1)); echo "FAIL $ex/$name"; echo "$out" | head -20; fi
    rm -rf "$tmp"
  done
done
echo "$ok ok, $fail failed"
[ $fail -eq 0 ]
