#!/usr/bin/env bash
# Records the runs in this folder on a machine with a GPU and nvcc:
#   checker/testdata/runs/record.sh LESSONS_BINARY OUT_DIR
# For each run: NAME.bin (the statistics record), NAME.txt (what the
# program printed), NAME.exit (its exit status) and NAME.check (what
# `lessons check` said of it, one ✓/✗ line per check), NAME.memcheck (the
# log of compute-sanitizer memcheck with its leak check, where installed),
# and runs.tar with them all.
set -uo pipefail
bin=$(realpath "$1"); out=$(realpath -m "$2"); mkdir -p "$out"
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d); cp -r "$root/course.toml" "$root/lessons" "$root/exercises" "$root/solutions" "$work/"
mkdir -p "$work/variants"; cp "$root"/checker/testdata/variants/*.cu "$work/variants/"
cd "$work"; export LESSONS_CACHE=$work/.cache
# name exercise file
while read -r name ex file; do
  [ -z "$name" ] && continue
  "$bin" check "$ex" --file "$file" > "$out/$name.check" 2>&1
  prog=.lessons/check/$ex/prog
  if [ -x "$prog" ]; then
    (cd ".lessons/check/$ex" && LD_PRELOAD=$LESSONS_CACHE/kernels/liballocstats.so LESSONS_STATS=$out/$name.bin timeout 10 ./prog > "$out/$name.txt" 2>&1; echo $? > "$out/$name.exit")
    # The same program under compute-sanitizer memcheck, leaks included.
    if command -v compute-sanitizer > /dev/null; then
      t0=$EPOCHREALTIME
      (cd ".lessons/check/$ex" && timeout 60 compute-sanitizer --tool memcheck --leak-check full --print-limit 20 --log-file "$out/$name.memcheck" ./prog > /dev/null 2>&1)
      echo "$name memcheck: $(awk "BEGIN { printf \"%.2f s\", $EPOCHREALTIME - $t0 }"), $(grep -h 'ERROR SUMMARY' "$out/$name.memcheck")"
    fi
  fi
  echo "$name: $(grep -c '✓' "$out/$name.check") passed, $(grep -c '✗' "$out/$name.check") failed"
done <<'RUNS'
async_solution          async-pipeline solutions/day069/async_pipeline.cu
async_stub              async-pipeline exercises/day069/async_pipeline.cu
async_print_only        async-pipeline variants/async_pipeline_print_only.cu
async_sync_malloc       async-pipeline variants/async_pipeline_sync_malloc.cu
async_never_frees       async-pipeline variants/async_pipeline_never_frees.cu
async_default_stream    async-pipeline variants/async_pipeline_default_stream.cu
async_crash_after_alloc async-pipeline variants/crash_after_alloc.cu
cross_solution          cross-stream   solutions/day070/cross_stream.cu
cross_stub              cross-stream   exercises/day070/cross_stream.cu
cross_no_free_wait      cross-stream   variants/cross_stream_no_free_wait.cu
cross_event_before_fill cross-stream   variants/cross_stream_event_before_fill.cu
cross_host_sync         cross-stream   variants/cross_stream_host_sync.cu
pool_solution           pool-reuse     solutions/day069/pool_reuse.cu
pool_stub               pool-reuse     exercises/day069/pool_reuse.cu
pool_default_pool       pool-reuse     variants/pool_reuse_default_pool.cu
block_pool_solution     block-pool     solutions/day068/block_pool.cu
block_pool_stub         block-pool     exercises/day068/block_pool.cu
vmm_solution            vmm-growable   solutions/day072/growable.cu
vmm_stub                vmm-growable   exercises/day072/growable.cu
resource_solution       pool-resource  solutions/day076/pool_resource.h
resource_stub           pool-resource  exercises/day076/pool_resource.h
stream_pools_solution   stream-pools   solutions/day087/stream_pools.cu
stream_pools_stub       stream-pools   exercises/day087/stream_pools.cu
RUNS
rm -rf "$work"
tar -C "$out" -cf "$out/runs.tar" --exclude runs.tar .
