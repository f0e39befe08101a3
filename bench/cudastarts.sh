#!/usr/bin/env bash
# CUDA process starts a second on this machine: a tiny CUDA program
# (cudaMalloc, one kernel, sync, free; 2 hardware queues, as lessons grade
# runs them) started over and over by C workers on each of G GPUs at once,
# for G = 1, 2, 4, ... up to the GPUs here and C = 1, 4, 8; then with 8 on
# every GPU while a poller reads NVML's running-process list of every GPU
# (as lessons' driver cross-check does, every 20 ms, and every 1 ms).
# If the starts a second on G GPUs are about G times those on one, the
# driver's lock is each GPU's; if they stay as on one, it is the machine's.
# Needs nvcc and a GPU. Usage: bench/cudastarts.sh [SECONDS_PER_MEASURE]
set -euo pipefail
secs=${1:-5}
work=$(mktemp -d /tmp/cudastarts.XXXXXX)
cat > "$work/tiny.cu" <<'EOF'
#include <cstdio>
__global__ void add(int* p) { p[threadIdx.x] += 1; }
int main() {
  int* p = nullptr;
  if (cudaMalloc(&p, 1 << 20) != cudaSuccess) return 1;
  add<<<1, 32>>>(p);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  cudaFree(p);
  return 0;
}
EOF
# The poller reaches NVML through dlopen: no header or stub library needed.
cat > "$work/poll.cu" <<'EOF'
#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
struct Proc { unsigned pid; unsigned long long mem; unsigned gi, ci; };
typedef int (*initF)();
typedef int (*countF)(unsigned*);
typedef int (*handleF)(unsigned, void**);
typedef int (*procsF)(void*, unsigned*, Proc*);
int main(int argc, char** argv) {
  int us = atoi(argv[1]);
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!h) { fprintf(stderr, "no NVML\n"); return 1; }
  initF init = (initF)dlsym(h, "nvmlInit_v2");
  countF count = (countF)dlsym(h, "nvmlDeviceGetCount_v2");
  handleF handle = (handleF)dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
  procsF procs = (procsF)dlsym(h, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!init || !count || !handle || !procs || init() != 0) { fprintf(stderr, "NVML did not start\n"); return 1; }
  unsigned n = 0;
  count(&n);
  void* dev[64];
  for (unsigned i = 0; i < n && i < 64; i++) handle(i, &dev[i]);
  static Proc list[4096];
  for (long polls = 0;; polls++) {
    for (unsigned i = 0; i < n && i < 64; i++) { unsigned k = 4096; procs(dev[i], &k, list); }
    usleep(us);
  }
}
EOF
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
nvcc -arch="$arch" -o "$work/tiny" "$work/tiny.cu"
nvcc -o "$work/poll" "$work/poll.cu" -ldl
ngpu=$(nvidia-smi -L | wc -l)
echo "$(nvidia-smi -L | head -1 | sed 's/ (UUID.*//') and $((ngpu - 1)) more; $(nproc) cores; driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"

worker() { # dev, end (ns): count the programs that ended well before end
  local n=0
  while [ "$(date +%s%N)" -lt "$2" ]; do
    CUDA_VISIBLE_DEVICES=$1 CUDA_DEVICE_MAX_CONNECTIONS=2 "$work/tiny" && n=$((n + 1))
  done
  echo "$n" > "$work/count.$1.$BASHPID"
}
measure() { # gpus, per gpu, label
  rm -f "$work"/count.*
  local end=$(( $(date +%s%N) + secs * 1000000000 )) t0 t1
  t0=$(date +%s.%N)
  for d in $(seq 0 $(($1 - 1))); do
    for _ in $(seq "$2"); do worker "$d" "$end" & done
  done
  wait
  t1=$(date +%s.%N)
  local total; total=$(cat "$work"/count.* | awk '{s += $1} END {print s}')
  awk -v g="$1" -v c="$2" -v n="$total" -v t0="$t0" -v t1="$t1" -v l="$3" \
    'BEGIN { r = n / (t1 - t0); printf "%4d GPU(s) %3d at once on each %-22s %5d starts in %5.1f s: %6.1f a second, %5.1f per GPU\n", g, c, l, n, t1 - t0, r, r / g }'
}
gpus=1
while [ "$gpus" -le "$ngpu" ]; do
  for c in 1 4 8; do measure "$gpus" "$c" ""; done
  [ "$gpus" -eq "$ngpu" ] && break
  gpus=$((gpus * 2)); [ "$gpus" -gt "$ngpu" ] && gpus=$ngpu
done
for us in 20000 1000; do
  "$work/poll" "$us" & poller=$!
  measure "$ngpu" 8 "(NVML every $((us / 1000)) ms)"
  kill "$poller"; wait "$poller" 2>/dev/null || true
done
rm -rf "$work"
