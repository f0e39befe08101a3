#!/bin/bash
# On the GPU machine, in the root of a copy of main (prepare.sh assembled
# the carry folder this script is in):
#   bash carry/timeline/record.sh LESSONS TLREC
# Writes under $OUT, in under 150 s (each step is cut to what is left):
#   check/ID.txt      lessons check --timeline of every solution, then of
#                     the chosen wrong answers (ID.NAME.txt), at 80 columns
#   traces/*.trace    their traces (fixtures: copy the ones worth keeping
#                     to internal/timeline/testdata/recorded/ and run
#                     go test ./internal/timeline -update)
#   run/day069.txt    lessons run 69 --timeline (the lesson's cells)
#   cost.txt          each solution's program under tlrec: tracing off,
#                     on, and the library before the trace (medians of 3)
#   summary.txt       what to look at first
set -u
LESSONS=$(realpath "$1"); TLREC=$(realpath "$2")
C=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/timeline-out}
mkdir -p "$OUT/check" "$OUT/traces" "$OUT/run"
export PATH=/usr/local/cuda/bin:$PATH COLUMNS=80 HOME=${HOME:-/tmp/home}
mkdir -p "$HOME"
T0=$(date +%s)
left() { echo $((140 - $(date +%s) + T0)); }
cap() { local l; l=$(( $(left) - 3 )); [ "$l" -lt "$1" ] && echo $(( l > 1 ? l : 1 )) || echo "$1"; }  # a step's limit
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
# The libraries, built as lessons builds them: this one, and the one
# before the trace (what the trace's code costs when off).
# The library is allocstats.cu and what it includes (timeline.h, its
# sections under allocstats/), where they exist.
build() { mkdir -p "$1" && cp "$2"/allocstats.cu "$1"/ && for p in timeline.h allocstats; do [ ! -e "$2/$p" ] || cp -r "$2/$p" "$1"/ || return; done &&
  (cd "$1" && nvcc -x c++ -shared -Xcompiler -fPIC -cudart none -Xlinker -Bsymbolic -Xlinker -z,now -Xlinker -z,relro -o liballocstats.so allocstats.cu); }
build /tmp/tl-lib kernels > "$OUT/libbuild.txt" 2>&1 &
build /tmp/tl-base "$C/base" >> "$OUT/libbuild.txt" 2>&1 &
LIB=/tmp/tl-lib/liballocstats.so BASE=/tmp/tl-base/liballocstats.so
ids=$(sed -n 's/^id = "\(.*\)"/\1/p' course.toml)
sol() { awk -v id="$1" '$0 == "id = \"" id "\"" {f=1} f && /^solution = / {gsub(/^solution = "|"$/, ""); print; exit}' course.toml; }
for id in $ids; do
  [ "$(left)" -gt 70 ] || { echo "skipped $id: out of time" >> "$OUT/summary.txt"; continue; }
  s=$(sol "$id")
  t=$(date +%s%N)
  timeout "$(cap 30)" "$LESSONS" check "$id" --file "$s" --timeline --timeline-out "$OUT/traces/$id.trace" > "$OUT/check/$id.txt" 2>&1
  echo "exit $? after $(( ($(date +%s%N) - t) / 1000000 )) ms" >> "$OUT/check/$id.txt"
done
# A lesson's own cells, drawn (the pool's growth and trim, host waits).
[ "$(left)" -gt 45 ] && timeout "$(cap 25)" "$LESSONS" run 69 --timeline --keep-going --workspace /tmp/tl-day069 > "$OUT/run/day069.txt" 2>&1
echo "exit $?" >> "$OUT/run/day069.txt"
wait  # the libraries
# The cost: each solution's program alone, tracing off, on, and the
# library before the trace, alternately.
for id in $ids; do
  [ "$(left)" -gt 15 ] || break
  p=.lessons/check/$id/prog
  [ -x "$p" ] || continue
  (cd "$(dirname "$p")" && timeout "$(cap 20)" "$TLREC" -n 3 -w 0 -base "$BASE" "$LIB" ./prog) >> "$OUT/cost.txt" 2>&1
done
# A loop of 20,000 allocations, launches and frees: the cap, and the cost
# of each traced call.
cat > /tmp/tl-many.cu <<'CU'
#include <cuda_runtime.h>
__global__ void k(float* p) { p[threadIdx.x] += 1; }
int main() { cudaStream_t s; cudaStreamCreate(&s);
  for (int i = 0; i < 20000; i++) { float* p; cudaMallocAsync(&p, 4096, s); k<<<1, 32, 0, s>>>(p); cudaFreeAsync(p, s); }
  cudaStreamSynchronize(s); cudaStreamDestroy(s); return 0; }
CU
if [ "$(left)" -gt 14 ]; then
  (cd /tmp && nvcc -cudart shared -arch=native -o tl-many tl-many.cu && timeout "$(cap 12)" "$TLREC" -n 3 -w 0 -base "$BASE" "$LIB" /tmp/tl-many) >> "$OUT/cost.txt" 2>&1
fi
for f in "$C"/wrongsrc/*/*; do
  [ "$(left)" -gt 4 ] || break
  id=$(basename "$(dirname "$f")"); n=$(basename "${f%.*}")
  timeout "$(cap 30)" "$LESSONS" check "$id" --file "$f" --timeline --timeline-out "$OUT/traces/$id.$n.trace" > "$OUT/check/$id.$n.txt" 2>&1
  echo "exit $?" >> "$OUT/check/$id.$n.txt"
done
{
  echo "GPU: $(cat "$OUT/gpu.txt")"
  echo "took $(( $(date +%s) - T0 )) s"
  echo "solutions checked with --timeline (exit status):"; grep -H '^exit' "$OUT"/check/*.txt
  echo "timelines drawn: $(grep -l '^timeline: ' "$OUT"/check/*.txt | wc -l) of $(ls "$OUT"/check/*.txt | wc -l)"
  echo "run 69 --timeline: $(grep -c '^timeline: ' "$OUT/run/day069.txt") timelines; $(grep -c '(no timeline' "$OUT/run/day069.txt") without"
  echo "cost (off, on: tracing's cost; 'without the trace's code': the cost of the code when off):"; cat "$OUT/cost.txt" 2>/dev/null
} >> "$OUT/summary.txt"
