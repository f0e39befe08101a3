#!/bin/bash
# compile.sh [FILE...]: compiles each file of this half (default: all) with nvcc 11.8
# in a temporary copy of its exercise's folder, the file in place of the student file;
# correct files also with -Wall,-Wextra and no warning allowed. Run from the worktree root.
set -u
declare -A student=([block-pool]=day068/block_pool.cu [async-pipeline]=day069/async_pipeline.cu
  [pool-reuse]=day069/pool_reuse.cu [cross-stream]=day070/cross_stream.cu [strict-pool]=day071/strict_pool.cu
  [vmm-growable]=day072/growable.cu [pool-resource]=day076/pool_resource.h)
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(review/blind24/{block-pool,async-pipeline,pool-reuse,cross-stream,strict-pool,vmm-growable,pool-resource}/*.*)
rc=0
for f in "${files[@]}"; do
  ex=$(basename "$(dirname "$f")"); s=${student[$ex]}; tmp=$(mktemp -d)
  cp -r "exercises/$(dirname "$s")/." "$tmp/"; cp "$f" "$tmp/$(basename "$s")"
  unit=$(basename "$s"); [ "${unit##*.}" = h ] && unit=pool_resource.cu
  flags=(-arch=sm_90 -std=c++17 -c)
  case $(basename "$f") in correct.*) flags+=(-Xcompiler -Wall,-Wextra);; esac
  if out=$(cd "$tmp" && nvcc "${flags[@]}" "$unit" -o x.o 2>&1); then
    if [ -n "$out" ] && [[ $(basename "$f") == correct.* ]]; then echo "WARN $f"; echo "$out"; rc=1; else echo "ok   $f"; fi
  else echo "FAIL $f"; echo "$out"; rc=1; fi
  rm -rf "$tmp"
done
exit $rc
