#!/bin/bash
# Compiles every file of the twelfth set's first half (blind12a) as the
# student file in a copy of its exercise folder, with nvcc 11.8 as the
# brief asks: nvcc -arch=sm_90 -std=c++17 -c; the correct files also with
# -Xcompiler -Wall,-Wextra, where any warning fails. Run from the root of
# the repository. Prints one line a file and exits 1 if any failed.
set -u
fail=0
while read -r ex dir student main; do
  for f in review/blind12/$ex/correct.* review/blind12/$ex/wrong-*; do
    [ -e "$f" ] || continue
    d=$(mktemp -d)
    cp -r "$dir"/. "$d"/
    cp "$f" "$d/$student"
    flags=""
    case $(basename "$f") in correct.*) flags="-Xcompiler -Wall,-Wextra";; esac
    out=$(cd "$d" && nvcc -arch=sm_90 -std=c++17 $flags -c "$main" -o /dev/null 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || { [ -n "$flags" ] && [ -n "$out" ]; }; then
      echo "FAIL $f"; echo "$out"; fail=1
    else
      echo "ok   $f"
    fi
    rm -rf "$d"
  done
done <<'TABLE'
block-pool exercises/day068 block_pool.cu block_pool.cu
async-pipeline exercises/day069 async_pipeline.cu async_pipeline.cu
pool-reuse exercises/day069 pool_reuse.cu pool_reuse.cu
cross-stream exercises/day070 cross_stream.cu cross_stream.cu
strict-pool exercises/day071 strict_pool.cu strict_pool.cu
vmm-growable exercises/day072 growable.cu growable.cu
pool-resource exercises/day076 pool_resource.h pool_resource.cu
TABLE
exit $fail
