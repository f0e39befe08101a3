#!/bin/bash
# compile.sh [exercise...]: compiles every file of blind20's first half
# (or the exercises named) with nvcc, each in a temporary copy of its
# exercise's folder in place of the student file; the correct files also
# with -Wall,-Wextra, where any warning counts as a failure.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
declare -A dir=([block-pool]=day068 [async-pipeline]=day069 [pool-reuse]=day069 [cross-stream]=day070
                [strict-pool]=day071 [vmm-growable]=day072 [pool-resource]=day076)
declare -A stu=([block-pool]=block_pool.cu [async-pipeline]=async_pipeline.cu [pool-reuse]=pool_reuse.cu
                [cross-stream]=cross_stream.cu [strict-pool]=strict_pool.cu [vmm-growable]=growable.cu
                [pool-resource]=pool_resource.h)
exs=("$@")
[ ${#exs[@]} -eq 0 ] && exs=(block-pool async-pipeline pool-reuse cross-stream strict-pool vmm-growable pool-resource)
fail=0
for ex in "${exs[@]}"; do
  for f in "$here/$ex"/*; do
    tmp=$(mktemp -d)
    cp "$root/exercises/${dir[$ex]}"/*.cu "$root/exercises/${dir[$ex]}"/*.h "$tmp"/ 2>/dev/null
    cp "$f" "$tmp/${stu[$ex]}"
    main=${stu[$ex]}
    [ "$ex" = pool-resource ] && main=pool_resource.cu
    flags=""
    case "$(basename "$f")" in correct.*) flags="-Xcompiler -Wall,-Wextra";; esac
    if out=$(cd "$tmp" && nvcc -arch=sm_90 -std=c++17 $flags -c "$main" -o x.o 2>&1); then
      if [ -n "$flags" ] && echo "$out" | grep -qi warning; then
        echo "WARN $ex/$(basename "$f")"; echo "$out"; fail=1
      else
        echo "ok   $ex/$(basename "$f")"
      fi
    else
      echo "FAIL $ex/$(basename "$f")"; echo "$out"; fail=1
    fi
    rm -rf "$tmp"
  done
done
exit $fail
