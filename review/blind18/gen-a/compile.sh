#!/bin/bash
# compile.sh: compiles every file of blind18a with nvcc 11.8, each in a
# temporary copy of its exercise's folder in place of the student file
# (pool_resource.h through pool_resource.cu); the correct files also with
# -Xcompiler -Wall,-Wextra, no warning allowed. Exit 0 when all pass.
# Usage: compile.sh [exercise...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
set18=$(dirname "$here")
repo=$(cd "$set18/../.." && pwd)
declare -A dir=( [block-pool]=day068 [async-pipeline]=day069 [pool-reuse]=day069 [cross-stream]=day070
                 [strict-pool]=day071 [vmm-growable]=day072 [pool-resource]=day076 )
declare -A stu=( [block-pool]=block_pool.cu [async-pipeline]=async_pipeline.cu [pool-reuse]=pool_reuse.cu
                 [cross-stream]=cross_stream.cu [strict-pool]=strict_pool.cu [vmm-growable]=growable.cu
                 [pool-resource]=pool_resource.h )
declare -A unit=( [pool-resource]=pool_resource.cu )
fail=0
exs=("$@"); [ ${#exs[@]} -eq 0 ] && exs=("${!dir[@]}")
for ex in "${exs[@]}"; do
    [ -d "$set18/$ex" ] || continue
    for f in "$set18/$ex"/*; do
        [ -f "$f" ] || continue
        tmp=$(mktemp -d)
        cp -r "$repo/exercises/${dir[$ex]}/." "$tmp/"
        cp "$f" "$tmp/${stu[$ex]}"
        u=${unit[$ex]:-${stu[$ex]}}
        flags="-arch=sm_90 -std=c++17 -c"
        case $(basename "$f") in correct.*) flags="$flags -Xcompiler -Wall,-Wextra" ;; esac
        out=$(cd "$tmp" && nvcc $flags "$u" -o /dev/null 2>&1); rc=$?
        if [ $rc -ne 0 ]; then echo "FAIL $ex/$(basename "$f")"; echo "$out" | head -20; fail=1
        elif [[ $(basename "$f") == correct.* ]] && echo "$out" | grep -qi warning; then
            echo "WARN $ex/$(basename "$f")"; echo "$out" | head -20; fail=1
        else echo "ok   $ex/$(basename "$f")"; fi
        rm -rf "$tmp"
    done
done
exit $fail
