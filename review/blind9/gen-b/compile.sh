#!/bin/bash
# Compiles every file of the ninth blind set's second half as a student's
# file beside the exercise's other given files (nvcc 11.8 or later, no GPU
# needed): correct files also under -Wall,-Wextra and -Werror all-warnings.
# Run from the root of the repository.
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
rc=0
for ex in stream-pools ipc-pool graph-alloc peer-pool heap-vs-pool; do
    for f in review/blind9/$ex/*.cu; do
        [ -e "$f" ] || continue
        w=""
        case $f in */correct.cu) w="-Xcompiler -Wall,-Wextra -Werror all-warnings" ;; esac
        cp "$f" "$d/x.cu"
        if ! (cd "$d" && nvcc -arch=sm_90 -std=c++17 $w -c x.cu -o /dev/null); then echo "FAIL $f"; rc=1; fi
    done
done
cp exercises/day088/bench.cu "$d/"
for f in review/blind9/stream-ordered-pool/*.h; do
    [ -e "$f" ] || continue
    w=""
    case $f in */correct.h) w="-Xcompiler -Wall,-Wextra -Werror all-warnings" ;; esac
    cp "$f" "$d/stream_ordered_pool.h"
    if ! (cd "$d" && nvcc -arch=sm_90 -std=c++17 $w -c bench.cu -o /dev/null); then echo "FAIL $f"; rc=1; fi
done
for f in review/blind9/python-handoff/*.py; do
    [ -e "$f" ] || continue
    python3 -c "import sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')" "$f" || { echo "FAIL $f"; rc=1; }
done
[ $rc = 0 ] && echo "all compile"
exit $rc
