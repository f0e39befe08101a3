#!/bin/bash
# compile.sh: compiles every file of blind20's half B in a temporary
# copy of its exercise's folder, the file in place of the student file.
# Correct files also under -Wall,-Wextra (no warning allowed).
cd "$(dirname "$0")/../../.." || exit 1
root=$PWD
fail=0
declare -A dir=([stream-pools]=day087/stream_pools.cu [stream-ordered-pool]=day088/stream_ordered_pool.h
  [ipc-pool]=day073/ipc_pool.cu [graph-alloc]=day074/graph_alloc.cu [peer-pool]=day075/peer_pool.cu
  [heap-vs-pool]=day086/heap_vs_pool.cu [python-handoff]=day077/handoff.py)
for ex in "${!dir[@]}"; do
  student=${dir[$ex]}
  for f in review/blind20/$ex/*; do
    [ -f "$f" ] || continue
    tmp=$(mktemp -d)
    cp -r exercises/$(dirname $student)/. $tmp/
    cp "$f" $tmp/$(basename $student)
    case $student in
      *.py) python3 -m py_compile $tmp/$(basename $student) && echo "ok $f" || { echo "FAIL $f"; fail=1; } ;;
      *.h) src=$tmp/bench.cu ;;&
      *.cu) src=$tmp/$(basename $student) ;;&
      *.h|*.cu)
        flags=""
        case $f in *correct*) flags="-Xcompiler -Wall,-Wextra" ;; esac
        out=$(cd $tmp && nvcc -arch=sm_90 -std=c++17 $flags -c $(basename $src) -o x.o 2>&1)
        rc=$?
        if [ $rc -ne 0 ]; then echo "FAIL $f"; echo "$out" | head -20; fail=1
        elif [ -n "$flags" ] && echo "$out" | grep -qi warning; then echo "WARN $f"; echo "$out" | head; fail=1
        else echo "ok $f"; fi ;;
    esac
    rm -rf $tmp
  done
done
exit $fail
