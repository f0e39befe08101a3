#!/bin/bash
# The class server's load test on the GPU machine (BENCHMARKS.md): N
# students for DUR, with lessons and classload built beside this script
# and the course in tree/ (git archive HEAD),
# against lessons run's own time of the same cell.
set -u
C=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
N=${N:-8}; DUR=${DUR:-25s}; OUT=${OUT:-/tmp}
W=/tmp/classbench; rm -rf $W; mkdir -p $W
{ echo id,name,email; for i in $(seq 1 $N); do echo "s$i,Student $i,"; done; } > $W/roster.csv
nvidia-smi -L 2>/dev/null | head -2; nproc
cd $C/tree
TIMEFORMAT='%R s'
echo "lessons run 68 --cell 2 (first: builds; then 3 from the cache):"
for i in 1 2 3 4; do { time $C/lessons run 68 --cell 2 > $W/run$i.log 2>&1 ; } 2>&1; done
tail -3 $W/run4.log
$C/lessons invite --class $W/class --roster $W/roster.csv --url http://127.0.0.1:3977 > $W/links.csv || exit 1
$C/lessons serve --class $W/class --roster $W/roster.csv --addr 127.0.0.1:3977 --max-queued 4 --gpu-per-hour 0 > $W/serve.log 2>&1 &
SP=$!
for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/3977) 2>/dev/null && break; sleep 0.1; done
$C/classload -url http://127.0.0.1:3977 -links $W/links.csv -students $N -duration $DUR -think 1s -lone 5 -check-every 4 -submit-every 8 2>&1 | tee $OUT/classload.txt | head -40
kill $SP; wait $SP 2>/dev/null
echo "--- serve log"; tail -5 $W/serve.log
echo "--- audit: $(wc -l < $W/class/.class/audit.log) lines; actions:"; grep -o '"action":"[a-z ]*"' $W/class/.class/audit.log | sort | uniq -c
cp $W/class/.class/audit.log $OUT/ 2>/dev/null; true
