#!/bin/bash
# Beside lessons, serve.test, python.test (go test -c) and course/ (bench/notebooks/gpucourse).
# One call: the GPU notebook with lessons run, its last cell alone (--cell),
# the same notebook in the page (TestPageOnGPU), the driver's per-cell cost.
cd "$(dirname "$0")"
export PATH=/usr/local/cuda/bin:$PATH NO_COLOR=1 LESSONS_CACHE=$PWD/cache
t() { date +%s%N; }
{ python3 --version; which python3 nvcc ncu nsys; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c 'import numpy, numba, cupy; print(numpy.__version__, numba.__version__, cupy.__version__)'; } > $OUT/env.txt 2>&1
cp -r course c1 && cp -r course c2
a=$(t); (cd c1 && timeout 70 ../lessons run 1 --keep-going) > $OUT/run.txt 2>&1; echo "rc=$? wall_ms=$(( ($(t) - a) / 1000000 ))" >> $OUT/run.txt
cp c1/.lessons/work/*/.lessons-out/*.png $OUT/ 2>/dev/null
a=$(t); (cd c1 && timeout 40 ../lessons run 1 --cell 15) > $OUT/cell.txt 2>&1; echo "rc=$? wall_ms=$(( ($(t) - a) / 1000000 ))" >> $OUT/cell.txt
a=$(t); LESSONS_PAGE_BIN=$PWD/lessons LESSONS_PAGE_COURSE=$PWD/c2 LESSONS_PAGE_LESSON=1 LESSONS_PAGE_EXERCISE=none timeout 70 ./serve.test -test.run '^TestPageOnGPU$' -test.v > $OUT/page.txt 2>&1; echo "rc=$? wall_ms=$(( ($(t) - a) / 1000000 ))" >> $OUT/page.txt
timeout 20 ./python.test -test.run '^$' -test.bench BenchmarkCell -test.count 5 -test.benchtime 2000x > $OUT/pybench.txt 2>&1
