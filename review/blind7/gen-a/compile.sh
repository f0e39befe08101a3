#!/bin/bash
# Compiles every file of this half with nvcc 11.8, beside the exercise's
# other given files; the correct ones under -Wall,-Wextra (a warning fails).
# Usage: bash review/blind7/gen-a/compile.sh [exercise...]
cd "$(dirname "$0")/../../.."
declare -A student=([block-pool]=exercises/day068/block_pool.cu [async-pipeline]=exercises/day069/async_pipeline.cu [pool-reuse]=exercises/day069/pool_reuse.cu [cross-stream]=exercises/day070/cross_stream.cu [strict-pool]=exercises/day071/strict_pool.cu [vmm-growable]=exercises/day072/growable.cu [pool-resource]=exercises/day076/pool_resource.h)
fail=0
for ex in ${@:-block-pool async-pipeline pool-reuse cross-stream strict-pool vmm-growable pool-resource}; do
  s=${student[$ex]}
  for f in review/blind7/$ex/correct.* review/blind7/$ex/wrong-*; do
    d=$(mktemp -d); cp "$(dirname $s)"/* "$d"/; cp "$f" "$d/$(basename $s)"
    w=""; case $f in *correct.*) w="-Xcompiler -Wall,-Wextra";; esac
    if [ $ex = pool-resource ]; then src=$d/pool_resource.cu; else src=$d/$(basename $s); fi
    if [ $ex = vmm-growable ]; then out="-o $d/a.out -lcuda"; else out="-c -o $d/a.o"; fi
    log=$(nvcc -arch=sm_90 -std=c++17 $w $src $out 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || { [ -n "$w" ] && [ -n "$log" ]; }; then echo "FAIL $f"; echo "$log" | head -20; fail=1; else echo "ok $f"; fi
    rm -rf "$d"
  done
done
exit $fail
