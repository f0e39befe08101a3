#!/bin/bash
# Writes the first half of the sixth blind set (seven exercises) from its
# specs (gen-a/<exercise>.py, each the student file with exact edits) and
# compiles every file with nvcc, with the exercise's other given files beside
# it; the correct ones also under -Wall,-Wextra (any warning fails), and the
# VMM ones linked with -lcuda. Run from the root of the repository.
set -eu
here=review/blind6
for spec in $here/gen-a/*.py; do
  case $(basename $spec) in gen.py|manifest.py) continue ;; esac
  (cd $here/gen-a && python3 $(basename $spec))
done
(cd $here/gen-a && python3 manifest.py)
tmp=$(mktemp -d)
trap 'rm -rf $tmp' EXIT
fail=0
build() { # folder, file name in the exercise, other given files...
  local dir=$1 name=$2; shift 2
  for f in $here/$dir/correct.* $here/$dir/wrong-*; do
    rm -rf $tmp/x; mkdir -p $tmp/x
    for g in "$@"; do cp "$g" $tmp/x/; done
    cp "$f" $tmp/x/$name
    local src=$name link=""
    case $name in *.h) src=$(basename "$1") ;; esac
    case $name in growable.cu) link=-lcuda ;; esac
    local flags=""
    case $(basename $f) in correct.*) flags="-Xcompiler -Wall,-Wextra" ;; esac
    out=$(cd $tmp/x && nvcc -arch=sm_90 -std=c++17 $flags $src -o x $link 2>&1) || { echo "FAIL $f"; echo "$out"; fail=1; continue; }
    if [ -n "$flags" ] && echo "$out" | grep -q warning; then echo "WARN $f"; echo "$out"; fail=1; fi
  done
}
build block-pool block_pool.cu
build async-pipeline async_pipeline.cu
build pool-reuse pool_reuse.cu
build cross-stream cross_stream.cu
build strict-pool strict_pool.cu
build vmm-growable growable.cu
build pool-resource pool_resource.h exercises/day076/pool_resource.cu exercises/day076/memory_resource.h
[ $fail = 0 ] && echo "every file compiles"
exit $fail
