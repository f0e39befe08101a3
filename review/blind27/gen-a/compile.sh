#!/bin/bash
# Compiles every file of this half (or the files named) with nvcc 11.8, as
# the student file of its exercise, in a temporary copy of the exercise's
# folder: nvcc -arch=sm_90 -std=c++17 -c; pool_resource.h through
# pool_resource.cu. A correct file must also be silent under
# -Xcompiler -Wall,-Wextra (any output fails it). Exit 0 when all pass.
set -u
here=$(cd "$(dirname "$0")" && pwd)
set_dir=$(dirname "$here")
root=$(cd "$set_dir/../.." && pwd)
NVCC=${NVCC:-/usr/bin/nvcc}
declare -A DIR=([block-pool]=day068 [async-pipeline]=day069 [pool-reuse]=day069 [cross-stream]=day070 [strict-pool]=day071 [vmm-growable]=day072 [pool-resource]=day076)
declare -A FILE=([block-pool]=block_pool.cu [async-pipeline]=async_pipeline.cu [pool-reuse]=pool_reuse.cu [cross-stream]=cross_stream.cu [strict-pool]=strict_pool.cu [vmm-growable]=growable.cu [pool-resource]=pool_resource.h)
if [ $# -gt 0 ]; then files=("$@"); else
    files=()
    for ex in block-pool async-pipeline pool-reuse cross-stream strict-pool vmm-growable pool-resource; do
        for f in "$set_dir/$ex"/correct.* "$set_dir/$ex"/wrong-*; do files+=("$f"); done
    done
fi
ok=0; bad=0
for f in "${files[@]}"; do
    f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
    ex=$(basename "$(dirname "$f")")
    tmp=$(mktemp -d)
    mkdir -p "$tmp/ex"
    for g in "$root/exercises/${DIR[$ex]}"/*; do case "$g" in *.toml) ;; *) cp "$g" "$tmp/ex/" ;; esac; done
    cp "$f" "$tmp/ex/${FILE[$ex]}"
    src=${FILE[$ex]}
    [ "$ex" = pool-resource ] && src=pool_resource.cu
    flags=(-arch=sm_90 -std=c++17 -c)
    case "$(basename "$f")" in correct.*) flags+=(-Xcompiler -Wall,-Wextra) ;; esac
    out=$(cd "$tmp/ex" && "$NVCC" "${flags[@]}" "$src" -o "$tmp/x.o" 2>&1)
    rc=$?
    out=$(printf '%s\n' "$out" | grep -v 'nvcc warning : The .compute_35.*deprecated' | sed '/^$/d')
    if [ $rc -ne 0 ] || { case "$(basename "$f")" in correct.*) true ;; *) false ;; esac && [ -n "$out" ]; }; then
        echo "FAILED $ex/$(basename "$f")"; printf '%s\n' "$out" | head -20; bad=$((bad + 1))
    else
        echo "ok $ex/$(basename "$f")"; ok=$((ok + 1))
    fi
    rm -rf "$tmp"
done
echo "$ok ok, $bad failed"
[ $bad -eq 0 ]
