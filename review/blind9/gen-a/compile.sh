#!/bin/bash
# Compiles this half's files with nvcc 11.8, each as the student file in a
# copy of its exercise folder; the correct ones under -Wall,-Wextra (any
# warning fails). Usage: bash review/blind9/gen-a/compile.sh [exercise...]
cd "$(dirname "$0")/../../.." || exit 1
declare -A file=([block-pool]=exercises/day068/block_pool.cu [async-pipeline]=exercises/day069/async_pipeline.cu
  [pool-reuse]=exercises/day069/pool_reuse.cu [cross-stream]=exercises/day070/cross_stream.cu
  [strict-pool]=exercises/day071/strict_pool.cu [vmm-growable]=exercises/day072/growable.cu
  [pool-resource]=exercises/day076/pool_resource.h)
bad=0
for ex in ${@:-block-pool async-pipeline pool-reuse cross-stream strict-pool vmm-growable pool-resource}; do
  s=${file[$ex]}
  for f in review/blind9/$ex/correct.* review/blind9/$ex/wrong-*; do
    [ -e "$f" ] || continue
    d=$(mktemp -d)
    cp "$(dirname "$s")"/*.cu "$(dirname "$s")"/*.h "$d"/ 2>/dev/null
    cp "$f" "$d/$(basename "$s")"
    flags=""
    case $f in *correct.*) flags="-Xcompiler -Wall,-Wextra" ;; esac
    src=$d/$(basename "$s")
    [ "$ex" = pool-resource ] && src=$d/pool_resource.cu
    if [ "$ex" = vmm-growable ]; then o="-o $d/a.out -lcuda"; else o="-c -o $d/a.o"; fi
    log=$(nvcc -arch=sm_90 -std=c++17 $flags "$src" $o 2>&1); rc=$?
    if [ $rc -ne 0 ] || { [ -n "$flags" ] && [ -n "$log" ]; }; then
      echo "FAIL $f"; echo "$log" | head -15; bad=1
    else echo "ok $f"; fi
    rm -rf "$d"
  done
done
exit $bad
