#!/bin/bash
# Compiles the second half of the twelfth blind set as the brief asks: each
# CUDA file with nvcc (-arch=sm_90 -std=c++17 -c) in a copy of its
# exercise's folder, the correct ones with -Xcompiler -Wall,-Wextra and no
# warning allowed; each Python file with py_compile. Run from the root of
# the repository. Prints one line a file and exits 1 on any failure.
set -u
here=review/blind12
rc=0
while read -r ex dir file main; do
  for f in "$here/$ex"/correct.* "$here/$ex"/wrong-*; do
    [ -f "$f" ] || continue
    t=$(mktemp -d); cp -r "$dir"/. "$t"/; cp "$f" "$t/$file"
    if [ "${file##*.}" = py ]; then
      python3 -m py_compile "$t/$file" > "$t/log" 2>&1; r=$?
    else
      flags=""; case "$(basename "$f")" in correct.*) flags="-Xcompiler -Wall,-Wextra";; esac
      (cd "$t" && nvcc -arch=sm_90 -std=c++17 $flags -c "$main" -o /dev/null > log 2>&1); r=$?
      case "$(basename "$f")" in correct.*) [ -s "$t/log" ] && r=1;; esac
    fi
    echo "$ex/$(basename "$f"): rc=$r"; [ $r -eq 0 ] || { rc=1; head -5 "$t/log"; }
    rm -rf "$t"
  done
done <<'TABLE'
stream-pools exercises/day087 stream_pools.cu stream_pools.cu
stream-ordered-pool exercises/day088 stream_ordered_pool.h bench.cu
ipc-pool exercises/day073 ipc_pool.cu ipc_pool.cu
graph-alloc exercises/day074 graph_alloc.cu graph_alloc.cu
peer-pool exercises/day075 peer_pool.cu peer_pool.cu
heap-vs-pool exercises/day086 heap_vs_pool.cu heap_vs_pool.cu
python-handoff exercises/day077 handoff.py handoff.py
TABLE
exit $rc
