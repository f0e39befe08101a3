#!/bin/bash
# Compiles every file of blind16b: each in a temporary copy of its exercise's
# folder in place of the student file (the .h through bench.cu); correct files
# also with -Wall,-Wextra, and a warning counts as a failure. Python: py_compile.
cd "$(dirname "$0")/../../.." || exit 1
declare -A STU=( [stream-pools]=exercises/day087/stream_pools.cu [stream-ordered-pool]=exercises/day088/stream_ordered_pool.h
 [ipc-pool]=exercises/day073/ipc_pool.cu [graph-alloc]=exercises/day074/graph_alloc.cu [peer-pool]=exercises/day075/peer_pool.cu
 [heap-vs-pool]=exercises/day086/heap_vs_pool.cu [python-handoff]=exercises/day077/handoff.py )
fail=0; n=0
for ex in "${!STU[@]}"; do
  stu=${STU[$ex]}; dir=$(dirname "$stu"); base=$(basename "$stu")
  for f in review/blind16/$ex/*; do
    [ -f "$f" ] || continue; n=$((n+1))
    if [[ $base == *.py ]]; then PYTHONDONTWRITEBYTECODE=1 python3 -c "import py_compile,sys,tempfile; py_compile.compile(sys.argv[1], cfile=tempfile.mktemp(), doraise=True)" "$f" && echo "ok   $f" || { echo "FAIL $f"; fail=1; }; continue; fi
    tmp=$(mktemp -d); cp "$dir"/* "$tmp"/ 2>/dev/null; cp "$f" "$tmp/$base"
    if [[ $base == *.h ]]; then unit=$tmp/bench.cu; else unit=$tmp/$base; fi
    flags=""; [[ $(basename "$f") == correct.* ]] && flags="-Xcompiler -Wall,-Wextra"
    out=$(nvcc -arch=sm_90 -std=c++17 $flags -c "$unit" -o "$tmp/a.o" 2>&1); rc=$?
    if [ $rc -ne 0 ] || { [ -n "$flags" ] && echo "$out" | grep -qi warning; }; then echo "FAIL $f"; echo "$out" | head -20; fail=1; else echo "ok   $f"; fi
    rm -rf "$tmp"
  done
done
echo "$n files, fail=$fail"; exit $fail
