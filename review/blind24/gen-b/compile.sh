#!/bin/sh
# Compiles blind24 B's files, each in a temporary copy of its exercise's
# folder in place of the student file: compile.sh FILE... (or no argument: all).
# Correct files also with -Wall -Wextra, warnings shown.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -eq 0 ] && set -- "$here"/*/correct.* "$here"/*/wrong-*
rc=0
for f in "$@"; do
  [ -f "$f" ] || { echo "FAIL $f (no such file)"; rc=1; continue; }
  ex=$(basename "$(dirname "$f")")
  case $ex in
    stream-pools) d=day087 s=stream_pools.cu c=stream_pools.cu ;;
    stream-ordered-pool) d=day088 s=stream_ordered_pool.h c=bench.cu ;;
    ipc-pool) d=day073 s=ipc_pool.cu c=ipc_pool.cu ;;
    graph-alloc) d=day074 s=graph_alloc.cu c=graph_alloc.cu ;;
    peer-pool) d=day075 s=peer_pool.cu c=peer_pool.cu ;;
    heap-vs-pool) d=day086 s=heap_vs_pool.cu c=heap_vs_pool.cu ;;
    python-handoff) python3 -m py_compile "$f" && echo "ok $f" || rc=1; continue ;;
  esac
  t=$(mktemp -d)
  cp -r "$root/exercises/$d/." "$t/"
  cp "$f" "$t/$s"
  w=""
  case $(basename "$f") in correct.*) w="-Xcompiler -Wall,-Wextra" ;; esac
  if (cd "$t" && nvcc -arch=sm_90 -std=c++17 $w -c "$c" -o /dev/null); then echo "ok $f"; else echo "FAIL $f"; rc=1; fi
  rm -rf "$t"
done
find "$here" -name __pycache__ -prune -exec rm -rf {} +
exit $rc
