#!/bin/bash
# compile.sh [FILE...]: compiles each file of blind23's first half (all of
# them when none is named) with nvcc, in a temporary copy of its exercise's
# folder with the file in place of the student file (pool_resource.h
# through pool_resource.cu); the correct files also under -Wall,-Wextra,
# with any warning counted as a failure. Prints one line a file; exit 1
# when any failed.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
declare -A student=(
  [block-pool]=exercises/day068/block_pool.cu
  [async-pipeline]=exercises/day069/async_pipeline.cu
  [pool-reuse]=exercises/day069/pool_reuse.cu
  [cross-stream]=exercises/day070/cross_stream.cu
  [strict-pool]=exercises/day071/strict_pool.cu
  [vmm-growable]=exercises/day072/growable.cu
  [pool-resource]=exercises/day076/pool_resource.h
)
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  for ex in "${!student[@]}"; do for f in "$here/$ex"/*; do files+=("$f"); done; done
fi
bad=0
for f in "${files[@]}"; do
  f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
  ex=$(basename "$(dirname "$f")")
  s=${student[$ex]}
  tmp=$(mktemp -d)
  cp -r "$root/$(dirname "$s")/." "$tmp/"
  cp "$f" "$tmp/$(basename "$s")"
  src=$(basename "$s")
  [ "${src##*.}" = h ] && src=pool_resource.cu
  flags="-arch=sm_90 -std=c++17 -c"
  case "$(basename "$f")" in correct.*) flags="$flags -Xcompiler -Wall,-Wextra";; esac
  if out=$(cd "$tmp" && nvcc $flags "$src" -o x.o 2>&1) && { [[ "$(basename "$f")" != correct.* ]] || ! grep -qi warning <<<"$out"; }; then
    echo "ok   $ex/$(basename "$f")"
  else
    echo "FAIL $ex/$(basename "$f")"; echo "$out" | head -20; bad=1
  fi
  rm -rf "$tmp"
done
exit $bad
