#!/bin/bash
# Where a CUDA process start spends its time (issue 44): cuInit, the
# primary context and the runtime timed inside the program, alone, 16 at
# once on one GPU, 4 at once on each of 4 GPUs; syscalls by count and
# time. Needs nvcc and a GPU. Usage: bench/cudaphases.sh
export PATH=/usr/local/cuda/bin:$PATH
W=/tmp/sp; mkdir -p $W; cd $W
cat > p.cu <<'CU'
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <time.h>
static double now(){timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
__global__ void k(int*p){p[threadIdx.x]+=1;}
int main(){double t0=now(); cuInit(0); double t1=now();
 CUdevice d; cuDeviceGet(&d,0); CUcontext c; cuDevicePrimaryCtxRetain(&c,d); cuCtxSetCurrent(c); double t2=now();
 cudaFree(0); double t3=now(); int*p; cudaMalloc(&p,1<<20); k<<<1,32>>>(p); cudaDeviceSynchronize(); double t4=now();
 cudaFree(p); printf("init %.1f ctx %.1f rt %.1f first %.1f ms\n",t1-t0,t2-t1,t3-t2,t4-t3); return 0;}
CU
nvcc -arch=sm_90 -o p p.cu -lcuda || exit 1
nvidia-smi -q | grep -iE "persistence|addressing|MIG Mode" -A0 | sort | uniq -c
ls /dev/nvidia* | tr '\n' ' '; echo
echo "== alone, 8 times (total ms per process by /usr/bin/time)"
for i in 1 2 3 4 5 6 7 8; do s=$EPOCHREALTIME; CUDA_VISIBLE_DEVICES=0 ./p; echo "  wall $(awk "BEGIN{print ($EPOCHREALTIME-$s)*1000}") ms"; done
echo "== 16 at once on GPU 0"
for i in $(seq 16); do CUDA_VISIBLE_DEVICES=0 ./p & done; wait
echo "== 4 at once on each of 4 GPUs"
for g in 0 1 2 3; do for i in 1 2 3 4; do CUDA_VISIBLE_DEVICES=$g ./p & done; done; wait
echo "== one GPU visible vs all visible, alone"
./p; CUDA_VISIBLE_DEVICES=0 ./p
echo "== lazy vs eager modules"; CUDA_MODULE_LOADING=EAGER CUDA_VISIBLE_DEVICES=0 ./p
if command -v strace >/dev/null; then
 echo "== syscalls of one start (strace -c -f)"; CUDA_VISIBLE_DEVICES=0 strace -f -c -o $W/sc.txt ./p; sort -k2 -nr $W/sc.txt | head -12
 echo "== the slowest ioctls (strace -T)"; CUDA_VISIBLE_DEVICES=0 strace -f -T -e trace=ioctl,openat,mmap -o $W/st.txt ./p >/dev/null; awk -F'<' '{t=$NF; sub(/>.*/,"",t); print t, $0}' $W/st.txt | sort -nr | head -15 | cut -c1-160
 echo "ioctls: $(grep -c ioctl $W/st.txt)"
fi
