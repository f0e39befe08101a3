#!/bin/bash
# Compiles every file of the fourteenth set's second half (blind14b) as
# its exercise would: each CUDA file in a copy of its exercise's folder
# with nvcc -arch=sm_90 -std=c++17 -c (correct files under -Wall,-Wextra,
# which must print nothing), each Python file with py_compile. Run from
# the root of the repository; prints one line a file and exits 1 on a
# failure.
set -u
here=review/blind14
rc=0
check() {  # exercise folder, student file name, set folder
  local dir=$1 name=$2 set=$3 f t out
  for f in "$here/$set"/correct.* "$here/$set"/wrong-*; do
    t=$(mktemp -d); cp "$dir"/*.cu "$dir"/*.h "$t"/ 2>/dev/null; cp "$f" "$t/$name"
    main=$name; [ "${name##*.}" = h ] && main=bench.cu
    case $(basename "$f") in
      correct.*) out=$(cd "$t" && nvcc -arch=sm_90 -std=c++17 -Xcompiler -Wall,-Wextra -c "$main" -o /dev/null 2>&1) ;;
      *) out=$(cd "$t" && nvcc -arch=sm_90 -std=c++17 -c "$main" -o /dev/null 2>&1) ;;
    esac
    if [ $? -ne 0 ] || { [ -n "$out" ] && [[ $(basename "$f") == correct.* ]]; }; then echo "FAIL $f"; echo "$out"; rc=1; else echo "ok   $f"; fi
    rm -rf "$t"
  done
}
check exercises/day087 stream_pools.cu stream-pools
check exercises/day088 stream_ordered_pool.h stream-ordered-pool
check exercises/day073 ipc_pool.cu ipc-pool
check exercises/day074 graph_alloc.cu graph-alloc
check exercises/day075 peer_pool.cu peer-pool
check exercises/day086 heap_vs_pool.cu heap-vs-pool
for f in "$here"/python-handoff/*.py; do
  if python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$f" 2>/dev/null; then echo "ok   $f"; else echo "FAIL $f"; rc=1; fi
done
exit $rc
