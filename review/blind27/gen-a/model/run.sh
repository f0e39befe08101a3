#!/bin/bash
# Host-side models, no GPU: each exercise's pool logic compiled with g++
# against a stub cuda_runtime.h (events that are done unless recorded on
# the "busy" stream 9; cudaMalloc from the heap), to check the lists and
# the runs of this set's correct and wrong files. Not a run of the real
# programs: the kernels, the streams' timing and the driver are not here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
set_dir=$(cd "$here/../.." && pwd)
root=$(cd "$set_dir/../.." && pwd)
tmp=$(mktemp -d)
# block-pool: the class BlockPool, cut out of each file, driven by test.cpp.
cp "$here/block-pool/"* "$tmp/"
for f in "$set_dir"/block-pool/*.cu; do
    python3 - "$f" "$tmp/pool.inc" <<'PY'
import sys
s = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(s[s.index("constexpr size_t kAlign"):s.index("// kGateNs")])
PY
    g++ -std=c++17 -w -DPOOL='"pool.inc"' -I"$tmp" "$tmp/test.cpp" -o "$tmp/t" || continue
    for b in 8 64; do echo "== block-pool/$(basename "$f") $b blocks"; (cd "$tmp" && timeout 10 ./t $b | tail -4); done
done
# pool-resource: the header itself over a stub upstream, phases 1 to 4 and 7.
mkdir -p "$tmp/pr"
cp "$here/pool-resource/"* "$tmp/pr/"
python3 - "$root/exercises/day076/memory_resource.h" "$tmp/pr/memory_resource.h" <<'PY'
import sys
s = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(s[:s.index("// async_resource is RMM")] + "}  // namespace mr\n")
PY
for f in "$set_dir"/pool-resource/*.h; do
    cp "$f" "$tmp/pr/pool_resource.h"
    g++ -std=c++17 -O1 -I"$tmp/pr" "$tmp/pr/test.cpp" -o "$tmp/pr/t" || continue
    echo "== pool-resource/$(basename "$f")"; (cd "$tmp/pr" && timeout 20 ./t) || echo "(stopped: $?)"
done
rm -rf "$tmp"
