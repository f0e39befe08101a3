#!/bin/bash
# The class server's load test on the GPU machine (BENCHMARKS.md): N
# students for DUR, with lessons and classload built beside this script
# and the course in tree/ (git archive HEAD),
# against lessons run's own time of the same cell.
# KILL=1: the same load with every save and submission the server
# acknowledged recorded, the server killed with kill -9 half-way through
# the load and restarted at once (the students go on, their sessions
# kept), then classload -verify: the files and the gradebook hold every
# acknowledged save and submission, at the kill (before the restart) and
# at the end.
set -u
C=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
N=${N:-8}; DUR=${DUR:-25s}; OUT=${OUT:-/tmp}; KILL=${KILL:-0}
W=/tmp/classbench; rm -rf $W; mkdir -p $W
{ echo id,name,email; for i in $(seq 1 $N); do echo "s$i,Student $i,"; done; } > $W/roster.csv
nvidia-smi -L 2>/dev/null | head -2; nproc
cd $C/tree
TIMEFORMAT='%R s'
if [ "$KILL" != 1 ]; then
  echo "lessons run 68 --cell 2 (first: builds; then 3 from the cache):"
  for i in 1 2 3 4; do { time $C/lessons run 68 --cell 2 > $W/run$i.log 2>&1 ; } 2>&1; done
  tail -3 $W/run4.log
fi
$C/lessons invite --class $W/class --roster $W/roster.csv --url http://127.0.0.1:3977 > $W/links.csv || exit 1
serve() {
  $C/lessons serve --class $W/class --roster $W/roster.csv --addr 127.0.0.1:3977 --max-queued 4 --gpu-per-hour 0 >> $W/serve.log 2>&1 &
  SP=$!
  for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/3977) 2>/dev/null && break; sleep 0.1; done
  kill -0 $SP 2>/dev/null || { echo "the class server did not start:"; tail -5 $W/serve.log; exit 1; }
}
serve
if [ "$KILL" != 1 ]; then
  $C/classload -url http://127.0.0.1:3977 -links $W/links.csv -students $N -duration $DUR -think 1s -lone 5 -check-every 4 -submit-every 8 2>&1 | tee $OUT/classload.txt | head -40
  kill $SP; wait $SP 2>/dev/null
else
  $C/classload -url http://127.0.0.1:3977 -links $W/links.csv -students $N -duration $DUR -think 1s -lone 0 -check-every 4 -submit-every 4 -save-every 1 \
    -record $W/acked.jsonl > $OUT/classload-kill.txt 2>&1 &
  LP=$!
  # The load has begun when the first save is acknowledged; kill half-way.
  for i in $(seq 600); do grep -q '"kind":"saved"' $W/acked.jsonl 2>/dev/null && break; sleep 0.1; done
  sleep $(( ${DUR%s} / 2 ))
  echo "kill -9 at $(grep -c '"kind":"saved"' $W/acked.jsonl) saves and $(grep -c '"kind":"submitted"' $W/acked.jsonl) submissions acknowledged; $(pgrep -c -P $SP) children of the server"
  kill -9 $SP; wait $SP 2>/dev/null
  # The files and the gradebook as the kill left them, before the
  # restart and the students' next saves.
  echo "at the kill: $($C/classload -verify -record $W/acked.jsonl -class $W/class 2>&1)"
  t0=$EPOCHREALTIME; serve
  echo "restarted in $(awk "BEGIN{printf \"%.1f s\", $EPOCHREALTIME-$t0}")"
  wait $LP; echo "classload rc=$?"; head -12 $OUT/classload-kill.txt
  echo "errors while the server was down or cut (connection refused, streams cut):"
  grep -c 'refused\|stream ended\|EOF\|reset' $OUT/classload-kill.txt
  kill $SP; wait $SP 2>/dev/null
  $C/classload -verify -record $W/acked.jsonl -class $W/class 2>&1 | tee $OUT/classload-verify.txt
  echo "audit: $(grep -c '"action":"submit stopped"' $W/class/.class/audit.log) submissions reported stopped"
  cp $W/acked.jsonl $OUT/ 2>/dev/null
fi
echo "--- serve log"; tail -5 $W/serve.log
echo "--- audit: $(wc -l < $W/class/.class/audit.log) lines; actions:"; grep -o '"action":"[a-z ]*"' $W/class/.class/audit.log | sort | uniq -c
cp $W/class/.class/audit.log $OUT/ 2>/dev/null; true
