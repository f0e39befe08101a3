#!/bin/bash
# Compiles this half's files (blind14a) with nvcc 11.8 beside the
# exercise's other given files; correct files also with -Wall,-Wextra.
# Run from the repository root. SETS="block-pool" compiles fewer folders.
set -u
declare -A dir=([block-pool]=day068:block_pool.cu [async-pipeline]=day069:async_pipeline.cu
  [pool-reuse]=day069:pool_reuse.cu [cross-stream]=day070:cross_stream.cu
  [strict-pool]=day071:strict_pool.cu [vmm-growable]=day072:growable.cu
  [pool-resource]=day076:pool_resource.h)
bad=0
for ex in ${SETS:-block-pool async-pipeline pool-reuse cross-stream strict-pool vmm-growable pool-resource}; do
  d=${dir[$ex]%%:*}; f=${dir[$ex]#*:}
  for src in review/blind14/$ex/*; do
    t=$(mktemp -d); cp exercises/$d/* "$t/"; cp "$src" "$t/$f"
    unit=$f; [ "${f##*.}" = h ] && unit=pool_resource.cu
    flags=""; case $src in */correct.*) flags="-Xcompiler -Wall,-Wextra" ;; esac
    if out=$(cd "$t" && nvcc -arch=sm_90 -std=c++17 $flags -c "$unit" -o /dev/null 2>&1); then
      [ -n "$out" ] && { echo "WARN $src"; echo "$out" | head -5; }
    else
      echo "FAIL $src"; echo "$out" | head -8; bad=1
    fi
    rm -rf "$t"
  done
done
exit $bad
