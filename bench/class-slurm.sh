#!/usr/bin/env bash
# class-slurm.sh LESSONS [RUNS]: what the pilot jobs add to the class
# server's runs, on the one-node cluster of scripts/slurm-one-node.sh (run
# as root), with the stand-in nvcc of scripts/tiny-class.sh (no GPU: what is
# measured is the machinery, not the work). The same server is started
# twice: its runs here (local), then every run on a pilot's GPUs and every
# build on a build pilot (--slurm-only --slurm-nodes 1 --slurm-build-nodes 1).
# One student, one request at a time, RUNS of each (default 20); prints the
# median and the largest of each, in ms:
#   up       the server's start to every pilot's worker connected (pilot mode)
#   cell     a cell that echoes (Run to the end of the stream)
#   cell4m   the same cell with a 4 MiB file in the workspace (hashed on
#            every run, sent once)
#   check    Check of an exercise (build cached after the first, run, judged)
#   submit   Submit (hidden runs, the gradebook)
set -euo pipefail
lessons=$(realpath "${1:?usage: bench/class-slurm.sh LESSONS [RUNS]}")
runs=${2:-20}
here=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d /tmp/lessons-class-slurm.XXXXXX)
"$here/scripts/tiny-class.sh" "$w" 1 0 >/dev/null
printf '# Pipe\n\n```sh run\necho hello\n```\n\n```sh run\n[ -f big.bin ] || head -c 4194304 /dev/urandom >big.bin; echo hello\n```\n' >"$w/course/lessons/day001-pipe.md"
export PATH="$w/cuda/bin:$PATH" LESSONS_GPU='Fake GPU,9.0,85899345920'
export LESSONS_SANDBOX_USERS=off LESSONS_SANDBOX_READ="$w/cuda/bin" LESSONS_CACHE="$w/cache"
printf 'id,name,email\nann,Ann,ann@uni.example\n' >"$w/roster.csv"
srv=""
trap '[ -z "$srv" ] || kill -INT $srv 2>/dev/null; wait 2>/dev/null; rm -rf "$w"' EXIT
now() { date +%s%N; }
stats() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f %.1f", m, v[NR] }'; }
cd "$w/course"
for mode in local pilot; do
  port=$((20000 + RANDOM % 10000)) url=""
  url=http://127.0.0.1:$port
  rm -rf "$w/class" "$w/jar"
  flags=()
  [ $mode = pilot ] && flags=(--slurm-only --slurm-nodes 1 --slurm-gpus-per-node 2 --slurm-cpus-per-node 2 --slurm-build-nodes 1 --slurm-build-cpus 2
    --slurm-url "$url" --partition gpu --build-partition cpu --time 10)
  t0=$(now)
  "$lessons" serve --class "$w/class" --roster "$w/roster.csv" --addr 127.0.0.1:$port "${flags[@]}" >"$w/serve-$mode.log" 2>&1 &
  srv=$!
  for _ in $(seq 1 600); do curl -s -o /dev/null "$url/" && break; sleep 0.05; done
  up=0
  if [ $mode = pilot ]; then
    for _ in $(seq 1 1200); do
      [ "$(cat "$w"/class/.class/slurm/logs/* 2>/dev/null | grep -c '^pilot: worker')" = 2 ] && break
      sleep 0.05
    done
    up=$((($(now) - t0) / 1000000))
  fi
  link=$("$lessons" invite --class "$w/class" --roster "$w/roster.csv" --url "$url" | tail -1 | sed 's/.*link=//')
  curl -sS -c "$w/jar" -o /dev/null -X POST -H "Origin: $url" --data-urlencode "link=$link" "$url/_class/signin"
  api() { curl -sS -b "$w/jar" -o "$w/last.txt" -w '%{time_total}\n' -X POST -H "Origin: $url" -H 'Content-Type: application/json' -d "$2" "$url$1" | awk '{ printf "%.1f\n", $1 * 1000 }'; }
  api /_class/api/file '{"exercise":"pipe","text":"// fake: echo 12 iterations\n"}' >/dev/null
  for what in cell cell4m check submit; do
    case $what in
      cell) req=(/_lessons/api/run '{"page":"day001-pipe","session":"s1","cell":1}') ;;
      cell4m) req=(/_lessons/api/run '{"page":"day001-pipe","session":"s1","cell":2}') ;;
      check) req=(/_lessons/api/check '{"exercise":"pipe"}') ;;
      submit) req=(/_class/api/submit '{"exercise":"pipe"}') ;;
    esac
    api "${req[@]}" >/dev/null # the first: builds, and a 4 MiB file sent once
    grep -q '"status":"ok"\|"passed":true\|"status":"passed"' "$w/last.txt" || { cat "$w/last.txt"; echo "class-slurm: $mode $what failed" >&2; exit 1; }
    echo "$mode $what $(for _ in $(seq 1 "$runs"); do api "${req[@]}"; done | stats)"
  done
  [ $mode = pilot ] && echo "$mode up $up $up"
  kill -INT $srv; wait $srv || true; srv=""
done | awk 'BEGIN { print "mode what median_ms max_ms" } { print }'
