#!/usr/bin/env bash
# slurm-overhead.sh LESSONS [STUDENTS] [REPEATS]: what the Slurm path adds to
# a grade, on the one-node cluster of scripts/slurm-one-node.sh (run as root).
# A stand-in class (scripts/tiny-class.sh, programs that do nothing) is
# graded locally and through Slurm, cold each time (new cache, gradebook and
# job folder); prints each repetition and the medians:
#   local      lessons grade (builds and runs here)
#   preflight  the two preflight jobs (sbatch --wait on each partition)
#   submit     planning and the two sbatch calls (--detach --no-preflight)
#   slurm      from the submission to the last result merged (collect --wait --poll 1s)
#   total      lessons grade --slurm, preflight included, start to end
set -euo pipefail
lessons=$(realpath "${1:?usage: bench/slurm-overhead.sh LESSONS [STUDENTS] [REPEATS]}")
n=${2:-40} reps=${3:-3}
# SLURM_FLAGS: more flags of grade --slurm (the class's course.toml says 4 items a task).
flags=${SLURM_FLAGS:---items-per-task 20}
here=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d /tmp/lessons-slurm-bench.XXXXXX)
"$here/scripts/tiny-class.sh" "$w" "$n" 0
export PATH="$w/cuda/bin:$PATH" LESSONS_GPU='Fake GPU,9.0,85899345920'
export LESSONS_SANDBOX_USERS=off LESSONS_SANDBOX_READ="$w/cuda/bin"
cd "$w/course"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
fresh() { rm -rf ../cache ../gb.db* ../local.db*; export LESSONS_CACHE="$w/cache"; }
echo "rep local preflight submit slurm total"
for r in $(seq 1 "$reps"); do
  fresh; t0=$(now); "$lessons" grade ../subs --gradebook ../local.db >/dev/null 2>&1; t1=$(now)
  fresh; t2=$(now); "$lessons" grade ../subs --slurm $flags --detach --gradebook ../gb.db >/dev/null 2>&1; t3=$(now)
  scancel $(sed -n 's/.*"\(build\|run\)_job": "\([0-9]*\)".*/\2/p' ../gb.db.slurm/state.json) 2>/dev/null || true; sleep 1
  fresh; t4=$(now); "$lessons" grade ../subs --slurm $flags --detach --no-preflight --gradebook ../gb.db >/dev/null 2>&1; t5=$(now)
  "$lessons" grade collect --wait --poll 1s --gradebook ../gb.db >/dev/null 2>&1; t6=$(now)
  fresh; t7=$(now); "$lessons" grade ../subs --slurm $flags --poll 1s --gradebook ../gb.db >/dev/null 2>&1; t8=$(now)
  l=$(secs $t0 $t1) s=$(secs $t4 $t5) p=$(awk -v a="$(secs $t2 $t3)" -v b="$s" 'BEGIN { printf "%.2f", a - b }') c=$(secs $t5 $t6) t=$(secs $t7 $t8)
  echo "$r $l $p $s $c $t"
done | tee "$w/rows"
printf "median"
for i in 2 3 4 5 6; do
  tail -n +2 "$w/rows" | awk -v i=$i '{ print $i }' | sort -n | awk '{ v[NR] = $1 } END { printf " %.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
done
echo
rm -rf "$w"
