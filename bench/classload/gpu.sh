#!/bin/bash
# The class server's load test on the GPU machine (BENCHMARKS.md): N
# students for DUR, with lessons and classload built beside this script
# and the course in tree/ (git archive HEAD), against lessons run's own
# time of the same cell. CONFIGS runs the load once for each set of
# serve flags, separated by ';' (e.g. "--gpu-queues 8;--gpu-queues 2").
# Each load prints, beside the students' figures, the server's trace
# (LESSONS_TRACE: where a slot's time goes) and the CUDA processes the
# driver listed (nvidia-smi sampled), against the floor of about 10 CUDA
# starts a second.
# KILL=1: one load with every save and submission the server
# acknowledged recorded, the server killed with kill -9 half-way through
# the load and restarted at once (the students go on, their sessions
# kept), then classload -verify: the files and the gradebook hold every
# acknowledged save and submission, at the kill (before the restart) and
# at the end.
# PILOTS=N: one load with the server's runs on N GPU pilots and one build
# pilot (serve --class --slurm-only), Slurm played by bench/fake-slurm on
# this machine, every pilot given this GPU; half-way through the load the
# first GPU pilot's job is cancelled (scancel): its runs run again on the
# others, and the fleet submits it again.
set -u
C=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
N=${N:-8}; DUR=${DUR:-25s}; OUT=${OUT:-/tmp}; CONFIGS=${CONFIGS:-}; KILL=${KILL:-0}
SLOTS=${SLOTS:-$(( $(nproc) < 16 ? $(nproc) : 16 ))}
W=/tmp/classbench; rm -rf $W; mkdir -p $W
{ echo id,name,email; for i in $(seq 1 $N); do echo "s$i,Student $i,"; done; } > $W/roster.csv
nvidia-smi -L 2>/dev/null | head -2; nproc; cat /proc/sys/kernel/pid_max
cd $C/tree
TIMEFORMAT='%R s'
if [ "$KILL" = 1 ]; then
  $C/lessons invite --class $W/class --roster $W/roster.csv --url http://127.0.0.1:3977 > $W/links.csv || exit 1
  serve() {
    $C/lessons serve --class $W/class --roster $W/roster.csv --addr 127.0.0.1:3977 --max-queued 4 --gpu-per-hour 0 >> $W/serve.log 2>&1 &
    SP=$!
    for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/3977) 2>/dev/null && break; sleep 0.1; done
    kill -0 $SP 2>/dev/null || { echo "the class server did not start:"; tail -5 $W/serve.log; exit 1; }
  }
  serve
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
  echo "--- serve log"; tail -5 $W/serve.log
  echo "--- audit: $(wc -l < $W/class/.class/audit.log) lines; actions:"; grep -o '"action":"[a-z ]*"' $W/class/.class/audit.log | sort | uniq -c
  cp $W/class/.class/audit.log $OUT/ 2>/dev/null; true
exit 0
fi
if [ "${PILOTS:-0}" -gt 0 ]; then
  export PATH=$C/tree/bench/fake-slurm:$PATH SLURM_FAKE_DIR=$W/fake-slurm
  $C/lessons invite --class $W/class --roster $W/roster.csv --url http://127.0.0.1:3977 > $W/links.csv || exit 1
  LESSONS_TRACE=$W/trace.jsonl $C/lessons serve --class $W/class --roster $W/roster.csv --addr 127.0.0.1:3977 --max-queued 4 --gpu-per-hour 0 \
    --slurm-only --slurm-nodes $PILOTS --slurm-gpus-per-node 1 --slurm-cpus-per-node 4 --slurm-build-nodes 1 --slurm-build-cpus 4 \
    --slurm-url http://127.0.0.1:3977 --time 30 > $W/serve.log 2>&1 &
  SP=$!
  logs=$W/class/.class/slurm/logs
  for i in $(seq 600); do [ "$(cat $logs/* 2>/dev/null | grep -c '^pilot: worker')" -ge $((PILOTS + 1)) ] && break; sleep 0.1; done
  echo "pilots' workers connected: $(cat $logs/* 2>/dev/null | grep -c '^pilot: worker') of $((PILOTS + 1)) in $((i / 10)) s"
  sample > $W/gpupids.txt & SM=$!
  $C/classload -url http://127.0.0.1:3977 -links $W/links.csv -students $N -duration $DUR -think 1s -lone 5 -check-every 4 -submit-every 8 \
    -trace $W/trace.jsonl -gpu-pids $W/gpupids.txt -slots $((PILOTS * 2)) > $OUT/classload-pilots.txt 2>&1 &
  LP=$!
  sleep $(( ${DUR%s} / 2 + 5 ))
  job=$(sed -n 's/.*"gpu0": *"\([0-9]*\)".*/\1/p' $W/class/.class/slurm/pilots.json)
  echo "scancel gpu0's pilot (job $job) half-way"; scancel $job
  wait $LP; echo "classload rc=$?"
  kill $SM; kill -INT $SP; wait $SP 2>/dev/null
  cat $OUT/classload-pilots.txt | head -30
  echo "--- pilot jobs submitted: $(ls $W/fake-slurm/*.pid | wc -l); still running: $(for f in $W/fake-slurm/*.pid; do kill -0 $(cat $f) 2>/dev/null && echo x; done | wc -l)"
  echo "--- serve log"; tail -5 $W/serve.log
  echo "--- audit actions:"; grep -o '"action":"[a-z ]*"' $W/class/.class/audit.log | sort | uniq -c
  for f in $logs/*; do echo "--- $f"; tail -4 $f; done
  cp $W/trace.jsonl $W/serve.log $OUT/ 2>/dev/null; cp -r $logs $OUT/pilot-logs 2>/dev/null; true
  exit 0
fi
echo "lessons run 68 --cell 2 (first: builds; then 3 from the cache):"
for i in 1 2 3 4; do { time $C/lessons run 68 --cell 2 > $W/run$i.log 2>&1 ; } 2>&1; done
tail -3 $W/run4.log
# sample samples the driver's list of compute processes until killed:
# lines "UNIX_NS PID", and "UNIX_NS -" at each sample's end.
sample() {
	while :; do
		t=$(date +%s%N)
		nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | sed "s/^/$t /"
		echo "$t -"
		sleep 0.05
	done
}
k=0
IFS=';' read -ra confs <<< "$CONFIGS"
[ ${#confs[@]} -eq 0 ] && confs=("")
for conf in "${confs[@]}"; do
	k=$((k+1)); D=$W/load$k; mkdir -p $D
	echo "=== load $k: serve --class ... $conf"
	$C/lessons invite --class $D/class --roster $W/roster.csv --url http://127.0.0.1:3977 > $D/links.csv || exit 1
	LESSONS_TRACE=$D/trace.jsonl $C/lessons serve --class $D/class --roster $W/roster.csv --addr 127.0.0.1:3977 --max-queued 4 --gpu-per-hour 0 $conf > $D/serve.log 2>&1 &
	SP=$!
	for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/3977) 2>/dev/null && break; sleep 0.1; done
	sample > $D/gpupids.txt & SM=$!
	$C/classload -url http://127.0.0.1:3977 -links $D/links.csv -students $N -duration $DUR -think 1s -lone 5 -check-every 4 -submit-every 8 \
		-trace $D/trace.jsonl -gpu-pids $D/gpupids.txt -slots $SLOTS 2>&1 | tee $OUT/classload$k.txt
	kill $SM; kill $SP; wait $SP 2>/dev/null
	echo "--- serve log"; tail -3 $D/serve.log
	echo "--- audit: $(wc -l < $D/class/.class/audit.log) lines; actions:"; grep -o '"action":"[a-z ]*"' $D/class/.class/audit.log | sort | uniq -c
	cp $D/class/.class/audit.log $OUT/audit$k.log 2>/dev/null
	cp $D/trace.jsonl $OUT/trace$k.jsonl 2>/dev/null
	cp $D/gpupids.txt $OUT/gpupids$k.txt 2>/dev/null
	echo "--- shared cache: $(find $D/class/cache -name out 2>/dev/null | wc -l) builds; left in builds/: $(ls $D/class/builds 2>/dev/null | wc -l)"
done
# The figures of each load last, for a caller that reads the tail
# (bench/integration.sh).
echo "=== summary"
grep -h "^lone run\|^runs:\|^Run to first\|^CUDA processes\|^errors" $OUT/classload[0-9]*.txt
true
