#!/bin/bash
# Assembles what record.sh needs in a carry folder (default
# /work/main/carry/timeline), under 15 MiB: record.sh, tlrec built small,
# the library as it was before the trace (base/: what the trace's code
# costs when off), and chosen wrong answers (a race, a free race, a host
# wait in a loop, a leak, a graph relaunch, an IPC pair) patched from
# solutions/*/wrong/. lessons itself is not carried: the lead builds it
# from the merged main. Then, on the GPU machine, in the root of a copy
# of main:
#   bash carry/timeline/record.sh carry/lead/lessons carry/timeline/tlrec
set -e
ROOT=$(git rev-parse --show-toplevel)
C=${1:-/work/main/carry/timeline}
rm -rf "$C" && mkdir -p "$C/base" "$C/wrongsrc"
first=$(git -C "$ROOT" log --diff-filter=A --format=%H -- kernels/timeline.h | tail -1)
git -C "$ROOT" show "$first^:kernels/allocstats.cu" > "$C/base/allocstats.cu"
(cd "$ROOT" && CGO_ENABLED=1 go build -ldflags="-s -w" -o "$C/tlrec" ./internal/timeline/testdata/tlrec)
cp "$ROOT/internal/timeline/testdata/gpu/record.sh" "$C/"
wrong() { # ID SOLUTION PATCH
  mkdir -p "$C/wrongsrc/$1"
  local out=$C/wrongsrc/$1/$(basename "$3" .patch).${2##*.}
  cp "$ROOT/$2" "$out" && patch -s --no-backup-if-mismatch "$out" < "$ROOT/$3"
}
wrong cross-stream solutions/day070/cross_stream.cu solutions/day070/wrong/cross-stream/no_wait.patch
wrong cross-stream solutions/day070/cross_stream.cu solutions/day070/wrong/cross-stream/first_reader_frees.patch
wrong async-pipeline solutions/day069/async_pipeline.cu solutions/day069/wrong/async-pipeline/sync_each_iteration.patch
wrong async-pipeline solutions/day069/async_pipeline.cu solutions/day069/wrong/async-pipeline/result_never_freed.patch
wrong async-pipeline solutions/day069/async_pipeline.cu solutions/day069/wrong/async-pipeline/free_before_scale.patch
wrong graph-alloc solutions/day074/graph_alloc.cu solutions/day074/wrong/graph-alloc/sync_each_launch.patch
wrong graph-alloc solutions/day074/graph_alloc.cu solutions/day074/wrong/graph-alloc/no_join.patch
wrong pool-reuse solutions/day069/pool_reuse.cu solutions/day069/wrong/pool-reuse/never_trimmed.patch
mkdir -p "$C/wrongsrc/ipc-pool"
cp "$ROOT/solutions/day073/wrong/ipc-pool/no_wait_for_fill.cu" "$ROOT/solutions/day073/wrong/ipc-pool/never_free_import.cu" "$C/wrongsrc/ipc-pool/"
du -sh "$C"
