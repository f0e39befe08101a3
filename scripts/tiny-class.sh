#!/usr/bin/env bash
# tiny-class.sh DIR STUDENTS SLEEP: a course of two exercises, a class of
# STUDENTS, and a stand-in nvcc (DIR/cuda/bin) whose programs do what a
# "// fake:" line of their source says, each sleeping SLEEP seconds: for
# trying grade --slurm without a GPU (.ci/slurm, bench/slurm-overhead.sh).
# Every third student's pipe prints the wrong count, every fifth hands in no
# alloc, odd students' alloc exits 1, s1's pipe does not compile; the rest
# hand in identical files (built once).
set -euo pipefail
w=$1 n=$2 sleep=$3
mkdir -p "$w/cuda/bin" "$w/course/lessons" "$w/course/exercises/day001" "$w/course/solutions"
cat >"$w/cuda/bin/nvcc" <<'EOF'
#!/bin/sh
if [ "$1" = "--version" ]; then echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0; fi
out=""; src=""; shared=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift ;; -shared) shared=1 ;; *.cu) src="$1" ;; esac; shift
done
if [ -n "$shared" ]; then : >"$out"; exit 0; fi
if grep -q '^// fake-error' "$src"; then echo "$src(3): error: expected a \";\"" >&2; exit 2; fi
printf '#!/bin/sh\n%s\n' "$(sed -n 's|^// fake: ||p' "$src")" >"$out"; chmod +x "$out"
EOF
chmod 755 "$w/cuda/bin/nvcc"
cat >"$w/course/course.toml" <<'EOF'
title = "Tiny"
[[lesson]]
file = "lessons/day001-pipe.md"
[[exercise]]
id = "pipe"
lesson = "1"
student = "exercises/day001/pipe.cu"
solution = "solutions/pipe.cu"
[[exercise]]
id = "alloc"
lesson = "1"
student = "exercises/day001/alloc.cu"
solution = "solutions/alloc.cu"

[grade.slurm]
partition = "gpu"
build_partition = "cpu"
items_per_task = 4
time = "10:00"
EOF
echo "# Pipe" >"$w/course/lessons/day001-pipe.md"
echo '// fake: echo 0 iterations' >"$w/course/exercises/day001/pipe.cu"
printf 'points = 10\ntimeout = "20s"\n[[check]]\nexit = 0\n[[check]]\ncontains = "12 iterations"\n' >"$w/course/exercises/day001/pipe.toml"
echo '// fake: echo 12 iterations' >"$w/course/solutions/pipe.cu"
echo '// fake: echo nothing' >"$w/course/exercises/day001/alloc.cu"
printf 'points = 5\ntimed = true\n[[check]]\ncontains = "allocated"\npoints = 4\n[[check]]\nexit = 0\npoints = 1\n' >"$w/course/exercises/day001/alloc.toml"
echo '// fake: echo allocated' >"$w/course/solutions/alloc.cu"
for i in $(seq 1 "$n"); do
  s="$w/subs/s$i"; mkdir -p "$s"
  if [ $((i % 3)) = 0 ]; then echo "// fake: sleep $sleep; echo 3 iterations" >"$s/pipe.cu"
  else echo "// fake: sleep $sleep; echo 12 iterations" >"$s/pipe.cu"; fi
  [ $((i % 5)) = 0 ] || echo "// fake: sleep $sleep; echo allocated; exit $((i % 2))" >"$s/alloc.cu"
done
printf '// fake-error\nint main() {\n  int x\n}\n' >"$w/subs/s1/pipe.cu"

