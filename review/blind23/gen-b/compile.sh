#!/bin/sh
# Compiles one file of blind23 (half B) the way the brief asks: in a
# temporary copy of its exercise's folder, in place of the student file,
# with nvcc -arch=sm_90 -std=c++17 -c (correct files also with
# -Xcompiler -Wall,-Wextra, and any warning is reported); a .h through
# the harness that includes it; a .py with python3 -m py_compile.
# Usage (from the worktree root): review/blind23/gen-b/compile.sh [review/blind23/EX/FILE]
# (no argument: every file of half B, one after another)
set -e
if [ $# -eq 0 ]; then
  here=$(dirname "$(readlink -f "$0")"); rc=0
  for g in "$here"/../*/correct.* "$here"/../*/wrong-*; do "$0" "$g" || rc=1; done
  exit $rc
fi
f=$(readlink -f "$1"); ex=$(basename "$(dirname "$f")")
case $ex in
  stream-pools) dir=day087 student=stream_pools.cu main=stream_pools.cu ;;
  stream-ordered-pool) dir=day088 student=stream_ordered_pool.h main=bench.cu ;;
  ipc-pool) dir=day073 student=ipc_pool.cu main=ipc_pool.cu ;;
  graph-alloc) dir=day074 student=graph_alloc.cu main=graph_alloc.cu ;;
  peer-pool) dir=day075 student=peer_pool.cu main=peer_pool.cu ;;
  heap-vs-pool) dir=day086 student=heap_vs_pool.cu main=heap_vs_pool.cu ;;
  python-handoff) python3 -m py_compile "$f" && echo "ok $1"; exit 0 ;;
esac
root=$(git -C "$(dirname "$f")" rev-parse --show-toplevel)
tmp=$(mktemp -d)
cp "$root/exercises/$dir/"*.cu "$root/exercises/$dir/"*.h "$tmp/" 2>/dev/null || true
cp "$f" "$tmp/$student"
flags="-arch=sm_90 -std=c++17 -c"
case $(basename "$f") in correct.*) flags="$flags -Xcompiler -Wall,-Wextra" ;; esac
(cd "$tmp" && nvcc $flags "$main" -o /dev/null 2> err.txt) || { cat "$tmp/err.txt"; rm -rf "$tmp"; exit 1; }
if [ -s "$tmp/err.txt" ]; then echo "warnings in $1:"; cat "$tmp/err.txt"; else echo "ok $1"; fi
rm -rf "$tmp"
