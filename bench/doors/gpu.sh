#!/usr/bin/env bash
# What issue 38's doors must be checked for on a GPU machine (the helper
# who closed them had none). Usage, from a checkout of the branch:
#   bench/doors/gpu.sh LESSONS_BINARY      (logs under $OUT, default /tmp/doors)
# 1. The seccomp filter's address families by list (door 9): CUDA starts,
#    launches, allocates (pool, pinned, mapped) in the sandbox, as root with
#    a worker's user and as nobody, with and without cgroups. Any family the
#    driver needs that the list refuses shows as a failed step here.
# 2. Why no memory limit without a cgroup (door 7): pinned memory's
#    accounting (RssShmem), and the least RLIMIT_AS under which CUDA starts.
# 3. A class's cells as root: the veil (door 8) and the workspace's own
#    file system (door 6) with a CUDA cell, through lessons grade's class.
set -uo pipefail
L=$(realpath "$1"); OUT=${OUT:-/tmp/doors}; mkdir -p "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
W=$(mktemp -d /tmp/doors-XXXX); chmod 755 "$W"
"$NVCC" -arch=sm_90 -o "$W/cuda_doors" "$(dirname "$0")/cuda_doors.cu" || { echo "nvcc failed"; exit 1; }
chmod 755 "$W/cuda_doors"
run() { echo "== $*"; "$@"; echo "== rc=$?"; }
{
  echo "# 1. CUDA in the sandbox"
  (cd "$W" && run "$L" sandbox -- ./cuda_doors)
  (cd "$W" && run "$L" sandbox --uid 61999 -- ./cuda_doors)
  (cd "$W" && run "$L" sandbox --no-cgroup --uid 61999 -- ./cuda_doors)
  (cd "$W" && run "$L" sandbox --landlock 5 --uid 61999 -- ./cuda_doors)
  cp "$L" "$W/lessons" && chmod 755 "$W/lessons"
  (cd "$W" && run setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp ./lessons sandbox -- ./cuda_doors)
  if command -v strace >/dev/null; then
    echo "# the address families and shared memory CUDA asks for, outside the sandbox"
    (cd "$W" && strace -f -e trace=socket,socketpair,memfd_create,shmget -o "$OUT/strace.txt" ./cuda_doors >/dev/null)
    sort "$OUT/strace.txt" | sed 's/^[0-9]* *//' | sort | uniq -c | sort -rn | head -20
    (cd "$W" && strace -f -e trace=mmap -o "$OUT/mmap.txt" ./cuda_doors >/dev/null)
    echo "mmap MAP_SHARED|MAP_ANONYMOUS: $(grep -c 'MAP_SHARED|MAP_ANONYMOUS' "$OUT/mmap.txt")"
  fi
  echo "# 2. RLIMIT_AS: the least CUDA starts under"
  for g in 1 4 16 64 256 1024; do
    printf "AS %5d GiB: " "$g"; (ulimit -v $((g << 20)); "$W/cuda_doors" 2>&1 | grep -v -e ": no error" -e "^Rss" -e "^Vm" | head -1)
  done
  echo "# 3. the doctor's line, and the class as root (bench/class.sh)"
  run "$L" doctor
} > "$OUT/doors.txt" 2>&1
grep -E '^(==|#|AS |doors:|Rss|VmLck|mmap|grading sandbox)|failed|FAILED|no cgroup' "$OUT/doors.txt"
rm -rf "$W"
