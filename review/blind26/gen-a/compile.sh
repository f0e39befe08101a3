#!/bin/bash
# Compiles every file of this half (or the files named) with nvcc 11.8 in a
# temporary copy of its exercise's folder, the file in place of the student
# file: `nvcc -arch=sm_90 -std=c++17 -c`; the correct files also with
# -Xcompiler -Wall,-Wextra, where any warning fails them. pool_resource.h
# goes through pool_resource.cu. Exit 0 when every file is ok.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
declare -A dir=([block-pool]=day068 [async-pipeline]=day069 [pool-reuse]=day069 [cross-stream]=day070
                [strict-pool]=day071 [vmm-growable]=day072 [pool-resource]=day076)
declare -A student=([block-pool]=block_pool.cu [async-pipeline]=async_pipeline.cu [pool-reuse]=pool_reuse.cu
                    [cross-stream]=cross_stream.cu [strict-pool]=strict_pool.cu [vmm-growable]=growable.cu
                    [pool-resource]=pool_resource.h)
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    for ex in "${!dir[@]}"; do for f in "$here/$ex"/*; do files+=("$f"); done; done
fi
ok=0 bad=0
for f in "${files[@]}"; do
    ex=$(basename "$(dirname "$f")")
    tmp=$(mktemp -d)
    cp "$root/exercises/${dir[$ex]}"/*.cu "$root/exercises/${dir[$ex]}"/*.h "$tmp"/ 2>/dev/null
    cp "$f" "$tmp/${student[$ex]}"
    unit=${student[$ex]}
    [ "$ex" = pool-resource ] && unit=pool_resource.cu
    flags=(-arch=sm_90 -std=c++17 -c)
    case "$(basename "$f")" in correct.*) flags+=(-Xcompiler -Wall,-Wextra) ;; esac
    if out=$(cd "$tmp" && /usr/bin/nvcc "${flags[@]}" "$unit" -o /dev/null 2>&1) && { [[ "$(basename "$f")" != correct.* ]] || [ -z "$out" ]; }; then
        ok=$((ok + 1))
    else
        bad=$((bad + 1)); echo "FAIL $ex/$(basename "$f")"; echo "$out" | head -20
    fi
    rm -rf "$tmp"
done
echo "$ok ok, $bad failed"
[ $bad -eq 0 ]
