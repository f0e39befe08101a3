#!/bin/bash
# compile.sh: compiles every file of blind19's first half in a temporary copy
# of its exercise's folder, the file in place of the student file; correct
# files also with -Wall,-Wextra (any warning is reported).
# usage: compile.sh [exercise...]   (run from anywhere; MAIN defaults to /work/main)
MAIN=${MAIN:-/work/main}
HERE=$(cd "$(dirname "$0")/.." && pwd)
declare -A DIR=( [block-pool]=day068 [async-pipeline]=day069 [pool-reuse]=day069 [cross-stream]=day070
  [strict-pool]=day071 [vmm-growable]=day072 [pool-resource]=day076 )
declare -A STU=( [block-pool]=block_pool.cu [async-pipeline]=async_pipeline.cu [pool-reuse]=pool_reuse.cu
  [cross-stream]=cross_stream.cu [strict-pool]=strict_pool.cu [vmm-growable]=growable.cu [pool-resource]=pool_resource.h )
declare -A TOP=( [pool-resource]=pool_resource.cu )
fail=0
for ex in ${@:-block-pool async-pipeline pool-reuse cross-stream strict-pool vmm-growable pool-resource}; do
  for f in "$HERE/$ex"/*.cu "$HERE/$ex"/*.h; do
    [ -e "$f" ] || continue
    t=$(mktemp -d); cp -r "$MAIN/exercises/${DIR[$ex]}/." "$t/"; cp "$f" "$t/${STU[$ex]}"
    top=${TOP[$ex]:-${STU[$ex]}}
    flags=""; case "$(basename "$f")" in correct.*) flags="-Xcompiler -Wall,-Wextra";; esac
    out=$(cd "$t" && nvcc -arch=sm_90 -std=c++17 $flags -c "$top" -o /dev/null 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then echo "FAIL $ex/$(basename "$f")"; echo "$out" | head -20; fail=1
    elif [ -n "$flags" ] && echo "$out" | grep -qi warning; then echo "WARN $ex/$(basename "$f")"; echo "$out" | head -20; fail=1
    else echo "ok   $ex/$(basename "$f")"; fi
    rm -rf "$t"
  done
done
exit $fail
