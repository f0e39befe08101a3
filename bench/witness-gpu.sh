#!/usr/bin/env bash
# witness2 (issue 37, round 3) on the GPU machine. Run from the root of a
# copy of merged main:   bash bench/witness-gpu.sh   (writes under $OUT)
# A class of two graded as root in the grading sandbox (a user per
# worker, the write-exec rule on, the witness on where BPF may be
# loaded), with the statistics library as merged: no symbol table, a
# hook's changed pointer stops the run, every sandboxed run made not
# dumpable by the library (LESSONS_STATS_UNDUMPABLE).
#   honest: six solutions of the course (block-pool with its sanitizer
#           runs, pool-reuse, vmm-growable through the driver, ipc-pool's
#           processes, strict-pool, day077's handoff.py under python3 with
#           torch): all six should pass with full points.
#   forger: handoff.py is corpus/proc_self_mem.py (writes code over a C
#           function through /proc/self/mem with ctypes): it should fail
#           with exit status 71 ("write /proc/self/mem: [Errno 13]
#           Permission denied" in its output), not 0.
set -uo pipefail
root=$(pwd); out=${OUT:-/tmp/witness2-out}; mkdir -p "$out"
bin=${LESSONS:-$(command -v lessons)}
export PATH=/usr/local/cuda/bin:$PATH
work=$(mktemp -d /tmp/witness2.XXXXXX); chmod 755 "$work"
export LESSONS_CACHE=$work/cache
mkdir -p "$work/subs/honest" "$work/subs/forger"
paste <(sed -n 's/^student = "\(.*\)"/\1/p' course.toml) <(sed -n 's/^solution = "\(.*\)"/\1/p' course.toml) |
while IFS=$'\t' read -r student solution; do
  case "$student" in  # a sample: the sanitizer's, the driver's, IPC between processes, Python
    */block_pool.cu|*/pool_reuse.cu|*/growable.cu|*/ipc_pool.cu|*/strict_pool.cu|*/handoff.py) cp "$solution" "$work/subs/honest/$(basename "$student")" ;;
  esac
done
cp internal/exercise/testdata/corpus/proc_self_mem.py "$work/subs/forger/handoff.py"
ls "$work/subs/honest" > "$out/handed-in.txt"
t0=$EPOCHREALTIME
timeout 90 "$bin" grade "$work/subs" --gradebook "$work/gb.db" > "$out/grade.txt" 2>&1; echo "grade rc=$? in $(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $t0 }") s" >> "$out/grade.txt"
"$bin" grade export --gradebook "$work/gb.db" --csv "$out/grades.csv" --json '' > /dev/null 2>&1
"$bin" grade feedback --gradebook "$work/gb.db" --out "$out/feedback" > /dev/null 2>&1
grep -E '^(Sandbox|Driver cross-check|Outside witness):' "$out/grade.txt" | cut -c1-200
tail -3 "$out/grade.txt"
cat "$out/grades.csv"
echo "forger's handoff (want exit status 71): $(grep -A12 '^## python-handoff' "$out/feedback/forger.md" | grep -o 'got: exit status [0-9]*' | head -1)"
echo "honest runs stopped by a hook's pointer check (want 0): $(grep -c 'got: exit status 70' "$out/feedback/honest.md")"
echo "honest exercises marked for review (want none but what the table shows): $(awk -F, 'NR>1 && $1=="honest" {print $NF}' "$out/grades.csv")"
rm -rf "$work"
