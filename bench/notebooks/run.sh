#!/bin/bash
# One call: the mixed notebook, then two seed notebook exports, with lessons run.
cd "$(dirname "$0")"
export PATH=/usr/local/cuda/bin:$PATH LESSONS_CACHE=$PWD/cache NO_COLOR=1
{ python3 --version; which python3 nvcc ncu nsys; } > $OUT/env.txt 2>&1
timeout 100 ./lessons run mixed.ipynb --workspace ws --keep-going > $OUT/h100.txt 2>&1; echo "rc=$?" >> $OUT/h100.txt
ls -la ws/.lessons-out >> $OUT/h100.txt 2>&1
cp ws/.lessons-out/*.png $OUT/ 2>/dev/null
for f in seeds/*.txt; do timeout 30 ./lessons run $f --workspace ws-$(basename $f .txt) --keep-going > $OUT/$(basename $f .txt).txt 2>&1; echo rc=$? >> $OUT/$(basename $f .txt).txt; done
