#!/bin/bash
# Records traces on the GPU: every solution checked with --timeline, chosen
# wrong answers, raw traces as fixtures, tracing's cost (tlrec off/on).
# prepare.sh beside it assembles the carry folder it runs from.
C=$(cd "$(dirname "$0")" && pwd)
if [ -z "$INNER" ]; then
  INNER=1 timeout ${BUDGET:-250} bash "$0"; echo "body exit $?" > $OUT/body-exit.txt
  cd $OUT && tar czf results.tgz r && rm -rf r
  exit 0
fi
R=$OUT/r; mkdir -p $R/check $R/traces $R/cost
export PATH=/usr/local/cuda/bin:$PATH COLUMNS=80 HOME=/tmp/home
mkdir -p $HOME
cd $C/tree
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1
# the library, built as lessons builds it
mkdir -p /tmp/lib && cp kernels/allocstats.cu kernels/timeline.h /tmp/lib/ && (cd /tmp/lib && nvcc -x c++ -shared -Xcompiler -fPIC -cudart none -Xlinker -Bsymbolic -Xlinker -z,now -Xlinker -z,relro -o liballocstats.so allocstats.cu) > $R/libbuild.txt 2>&1
LIB=/tmp/lib/liballocstats.so
mkdir -p /tmp/base && cp $C/base/allocstats.cu /tmp/base/ && (cd /tmp/base && nvcc -x c++ -shared -Xcompiler -fPIC -cudart none -Xlinker -Bsymbolic -Xlinker -z,now -Xlinker -z,relro -o liballocstats.so allocstats.cu) >> $R/libbuild.txt 2>&1
BASE=/tmp/base/liballocstats.so
ids="block-pool async-pipeline pool-reuse cross-stream vmm-growable pool-resource stream-pools stream-ordered-pool strict-pool ipc-pool graph-alloc heap-vs-pool"
sol() { grep -A3 "^id = \"$1\"" course.toml | sed -n 's/^solution = "\(.*\)"/\1/p'; }
for id in $ids; do
  s=$(sol $id)
  t0=$(date +%s.%N)
  timeout 60 $C/lessons check $id --file $s --timeline --timeline-out $R/traces/$id.trace > $R/check/$id.txt 2>&1
  echo "exit $? after $(echo "$(date +%s.%N) - $t0" | bc 2>/dev/null || echo '?') s" >> $R/check/$id.txt
  if [ -x .lessons/check/$id/prog ]; then cp .lessons/check/$id/prog /tmp/prog-$id; fi
done
# the cost: each solution's program run alone, tracing off and on, alternately
for id in $ids; do
  [ -x /tmp/prog-$id ] || continue
  mkdir -p /tmp/run-$id && cd /tmp/run-$id
  timeout 60 $C/tlrec -n 5 -w 0 -base $BASE $LIB /tmp/prog-$id >> $R/cost/all.txt 2>&1
  cd $C/tree
done
# a heavy one: a loop of many allocations (the cap and the cost per call)
cat > /tmp/many.cu <<'CU'
#include <cuda_runtime.h>
__global__ void k(float* p) { p[threadIdx.x] += 1; }
int main() { cudaStream_t s; cudaStreamCreate(&s);
  for (int i = 0; i < 20000; i++) { float* p; cudaMallocAsync(&p, 4096, s); k<<<1, 32, 0, s>>>(p); cudaFreeAsync(p, s); }
  cudaStreamSynchronize(s); cudaStreamDestroy(s); return 0; }
CU
(cd /tmp && nvcc -cudart shared -arch=sm_90 -o many many.cu) >> $R/cost/many-build.txt 2>&1
(cd /tmp && timeout 90 $C/tlrec -n 5 -w 80 -base $BASE $LIB /tmp/many) >> $R/cost/all.txt 2>&1
for f in $C/wrongsrc/*/*; do
  id=$(basename $(dirname $f)); n=$(basename ${f%.*})
  timeout 60 $C/lessons check $id --file $f --timeline --timeline-out $R/traces/$id.$n.trace > $R/check/$id.$n.txt 2>&1
  echo "exit $?" >> $R/check/$id.$n.txt
done
