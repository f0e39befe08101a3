#!/bin/bash
# compile.sh [FILE...]: compiles each named file of review/blind25 (default:
# every file of this half) with nvcc 11.8, in a temporary copy of its
# exercise's folder with the file in place of the student file (a .h through
# the .cu that includes it). Correct files also with -Wall,-Wextra, and any
# warning counts as a failure. Exit status: the number of failures.
cd "$(dirname "$0")/../../.." || exit 99
declare -A dir=( [block-pool]=day068 [async-pipeline]=day069 [pool-reuse]=day069 [cross-stream]=day070 [strict-pool]=day071 [vmm-growable]=day072 [pool-resource]=day076 )
declare -A stu=( [block-pool]=block_pool.cu [async-pipeline]=async_pipeline.cu [pool-reuse]=pool_reuse.cu [cross-stream]=cross_stream.cu [strict-pool]=strict_pool.cu [vmm-growable]=growable.cu [pool-resource]=pool_resource.h )
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  for e in "${!dir[@]}"; do files+=(review/blind25/$e/*.*); done
fi
fail=0
for f in "${files[@]}"; do
  e=$(basename "$(dirname "$f")")
  t=$(mktemp -d)
  cp exercises/${dir[$e]}/* "$t"/
  cp "$f" "$t/${stu[$e]}"
  src=${stu[$e]}
  [ "$e" = pool-resource ] && src=pool_resource.cu
  flags=""
  case "$(basename "$f")" in correct.*) flags="-Xcompiler -Wall,-Wextra";; esac
  if out=$(cd "$t" && nvcc -arch=sm_90 -std=c++17 $flags -c "$src" -o /dev/null 2>&1) && ! grep -qi warning <<<"$out"; then
    echo "ok   $f"
  else
    echo "FAIL $f"; echo "$out" | head -20; fail=$((fail+1))
  fi
  rm -rf "$t"
done
exit $fail
