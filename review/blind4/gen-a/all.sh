#!/bin/bash
# Regenerates part A of the fourth blind set and compiles every file with
# the exercise's flags (nvcc -arch=sm_90 -std=c++17 -c; -lcuda links
# vmm-growable). Run from anywhere: bash review/blind4/gen-a/all.sh
set -e
cd "$(dirname "$0")"
for g in block_pool async_pipeline pool_reuse cross_stream strict_pool vmm_growable ipc_pool; do python3 $g.py; done
cd ..
tmp=$(mktemp -d)
fail=0
for d in block-pool async-pipeline pool-reuse cross-stream strict-pool vmm-growable ipc-pool; do
  for f in $d/*.cu; do
    if ! nvcc -arch=sm_90 -std=c++17 -c "$f" -o "$tmp/x.o" 2> "$tmp/err"; then echo "FAIL $f"; cat "$tmp/err"; fail=1
    elif [ -s "$tmp/err" ]; then echo "WARN $f"; cat "$tmp/err"; fi
  done
done
rm -rf "$tmp"
[ $fail = 0 ] && echo "every file compiles"
