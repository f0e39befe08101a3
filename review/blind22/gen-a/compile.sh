#!/bin/bash
# compile.sh [FILE...]: compiles each given blind22 first-half file (all of
# them when none is given) with nvcc 11.8, in a temporary copy of its
# exercise's folder with the file in place of the student file (a .h
# through the .cu that includes it); correct files also with
# -Xcompiler -Wall,-Wextra, where any warning counts as a failure.
# Exit status: how many files failed.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
declare -A dir=( [block-pool]=day068 [async-pipeline]=day069 [pool-reuse]=day069 [cross-stream]=day070
                 [strict-pool]=day071 [vmm-growable]=day072 [pool-resource]=day076 )
declare -A stu=( [block-pool]=block_pool.cu [async-pipeline]=async_pipeline.cu [pool-reuse]=pool_reuse.cu
                 [cross-stream]=cross_stream.cu [strict-pool]=strict_pool.cu [vmm-growable]=growable.cu
                 [pool-resource]=pool_resource.h )
if [ $# -gt 0 ]; then files=("$@"); else files=("$here"/*/correct.* "$here"/*/wrong-*.*); fi
fail=0
for f in "${files[@]}"; do
    f=$(readlink -f "$f")
    ex=$(basename "$(dirname "$f")")
    [ -n "${dir[$ex]:-}" ] || continue
    tmp=$(mktemp -d)
    cp -r "$root/exercises/${dir[$ex]}/." "$tmp/"
    cp "$f" "$tmp/${stu[$ex]}"
    unit=${stu[$ex]}
    [ "$ex" = pool-resource ] && unit=pool_resource.cu
    flags=()
    case $(basename "$f") in correct.*) flags=(-Xcompiler -Wall,-Wextra);; esac
    out=$(cd "$tmp" && nvcc -arch=sm_90 -std=c++17 "${flags[@]}" -c "$unit" -o /dev/null 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || { [ ${#flags[@]} -gt 0 ] && echo "$out" | grep -qi warning; }; then
        echo "FAIL $ex/$(basename "$f")"; echo "$out"; fail=$((fail + 1))
    else
        echo "ok   $ex/$(basename "$f")"
    fi
    rm -rf "$tmp"
done
exit $fail
