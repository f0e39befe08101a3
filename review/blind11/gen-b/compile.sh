#!/bin/bash
# Compiles every file of the eleventh blind set's second half as the student's
# file, in a copy of its exercise's folder (nvcc 11.8 or later; no GPU):
# correct CUDA files also under -Wall,-Wextra with -Werror all-warnings;
# the Python files with py_compile. Run from the root of the repository.
set -u
rc=0
one() { # one FILE EXERCISE-FOLDER STUDENT-NAME TARGET
    local d w=""
    d=$(mktemp -d)
    cp "$2"/*.cu "$2"/*.h "$d"/ 2>/dev/null
    cp "$1" "$d/$3"
    case $1 in */correct.*) w="-Xcompiler -Wall,-Wextra -Werror all-warnings" ;; esac
    if ! (cd "$d" && nvcc -arch=sm_90 -std=c++17 $w -c "$4" -o /dev/null); then echo "FAIL $1"; rc=1; fi
    rm -rf "$d"
}
for f in review/blind11/stream-pools/*.cu; do one "$f" exercises/day087 stream_pools.cu stream_pools.cu; done
for f in review/blind11/stream-ordered-pool/*.h; do one "$f" exercises/day088 stream_ordered_pool.h bench.cu; done
for f in review/blind11/ipc-pool/*.cu; do one "$f" exercises/day073 ipc_pool.cu ipc_pool.cu; done
for f in review/blind11/graph-alloc/*.cu; do one "$f" exercises/day074 graph_alloc.cu graph_alloc.cu; done
for f in review/blind11/peer-pool/*.cu; do one "$f" exercises/day075 peer_pool.cu peer_pool.cu; done
for f in review/blind11/heap-vs-pool/*.cu; do one "$f" exercises/day086 heap_vs_pool.cu heap_vs_pool.cu; done
for f in review/blind11/python-handoff/*.py; do
    python3 -c "import sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')" "$f" || { echo "FAIL $f"; rc=1; }
done
[ $rc = 0 ] && echo "all compile"
exit $rc
