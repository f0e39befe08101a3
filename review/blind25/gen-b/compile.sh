#!/bin/bash
# compile.sh EXERCISE [FILE...]: compiles each given file of review/blind25/EXERCISE
# (all of them when none is given) in a temporary copy of the exercise's folder,
# in place of the student file. Correct files also with -Wall,-Wextra (warnings fail).
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
ex=$1; shift
case $ex in
  stream-pools) dir=day087; stu=stream_pools.cu; unit=stream_pools.cu ;;
  stream-ordered-pool) dir=day088; stu=stream_ordered_pool.h; unit=bench.cu ;;
  ipc-pool) dir=day073; stu=ipc_pool.cu; unit=ipc_pool.cu ;;
  graph-alloc) dir=day074; stu=graph_alloc.cu; unit=graph_alloc.cu ;;
  peer-pool) dir=day075; stu=peer_pool.cu; unit=peer_pool.cu ;;
  heap-vs-pool) dir=day086; stu=heap_vs_pool.cu; unit=heap_vs_pool.cu ;;
  python-handoff) dir=day077; stu=handoff.py; unit=handoff.py ;;
esac
files=("$@")
[ ${#files[@]} -eq 0 ] && files=($(ls "$root/review/blind25/$ex"))
fail=0
for f in "${files[@]}"; do
  f=$(basename "$f")
  tmp=$(mktemp -d)
  cp -r "$root/exercises/$dir/." "$tmp/"
  cp "$root/review/blind25/$ex/$f" "$tmp/$stu"
  if [ "$stu" = handoff.py ]; then
    python3 -m py_compile "$tmp/$stu" && echo "OK   $ex/$f" || { echo "FAIL $ex/$f"; fail=1; }
  else
    extra=""
    case $f in correct.*) extra="-Xcompiler -Wall,-Wextra" ;; esac
    out=$(cd "$tmp" && nvcc -arch=sm_90 -std=c++17 $extra -c "$unit" -o /dev/null 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || { [ -n "$extra" ] && echo "$out" | grep -qi warning; }; then echo "FAIL $ex/$f"; echo "$out" | head -20; fail=1; else echo "OK   $ex/$f"; fi
  fi
  rm -rf "$tmp"
done
exit $fail
