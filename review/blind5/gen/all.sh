#!/bin/bash
# Writes every folder of the fifth blind set from its spec (gen/<exercise>.py)
# and compiles each file with nvcc (the Python ones with py_compile), with the
# exercise's other given files beside it. Run from the root of the repository.
set -eu
here=review/blind5
for spec in $here/gen/*.py; do
  case $(basename $spec) in gen.py) continue ;; esac
  python3 $here/gen/gen.py $spec
done
tmp=$(mktemp -d)
trap 'rm -rf $tmp' EXIT
fail=0
build() { # folder, file name in the exercise, other given files...
  local dir=$1 name=$2; shift 2
  for f in $here/$dir/correct.* $here/$dir/wrong-*; do
    rm -rf $tmp/x; mkdir -p $tmp/x
    for g in "$@"; do cp "$g" $tmp/x/; done
    cp "$f" $tmp/x/$name
    case $name in
      *.py) python3 -m py_compile $tmp/x/$name || { echo "FAIL $f"; fail=1; } ;;
      *.h) main=$(basename "$1"); (cd $tmp/x && nvcc -arch=sm_90 -std=c++17 -c $main -o x.o) || { echo "FAIL $f"; fail=1; } ;;
      *) (cd $tmp/x && nvcc -arch=sm_90 -std=c++17 -c $name -o x.o) || { echo "FAIL $f"; fail=1; } ;;
    esac
  done
}
build block-pool block_pool.cu
build async-pipeline async_pipeline.cu
build pool-reuse pool_reuse.cu
build cross-stream cross_stream.cu
build strict-pool strict_pool.cu
build vmm-growable growable.cu
build ipc-pool ipc_pool.cu
build graph-alloc graph_alloc.cu
build peer-pool peer_pool.cu
build pool-resource pool_resource.h exercises/day076/pool_resource.cu exercises/day076/memory_resource.h
build stream-ordered-pool stream_ordered_pool.h exercises/day088/bench.cu
build python-handoff handoff.py
build heap-vs-pool heap_vs_pool.cu
build stream-pools stream_pools.cu
# the driver-API file links with -lcuda
(cd $tmp && cp /dev/null y && nvcc -arch=sm_90 -std=c++17 $OLDPWD/$here/vmm-growable/correct.cu -o $tmp/growable -lcuda) || { echo "FAIL vmm-growable link"; fail=1; }
[ $fail = 0 ] && echo "every file compiles"
exit $fail
