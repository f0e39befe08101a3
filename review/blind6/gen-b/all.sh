#!/bin/bash
# Regenerates the second half of the sixth blind set (blind6b) from the
# student files under exercises/, and compiles every file with the
# exercise's other given files beside it (nvcc 11.8 or newer; the correct
# files with -Xcompiler -Wall,-Wextra, which must print nothing). Run from
# the root of the repository. Each edit in gen-b/g_*.py must match exactly
# once: when a student file changes, run this and fix the edit it names.
set -eu
here=review/blind6/gen-b
for g in sp sop ipc ga pp hp py; do python3 "$here/g_$g.py"; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compile() {  # compile DIR FILE-AS MAIN
  local flags="-arch=sm_90 -std=c++17 -c"
  case "$1" in */correct.*) flags="$flags -Xcompiler -Wall,-Wextra" ;; esac
  rm -rf "$tmp"/*; cp "$1" "$tmp/$2"; [ -n "${4:-}" ] && cp "$4" "$tmp/"
  (cd "$tmp" && nvcc $flags "$3" -o x.o) || { echo "FAILED: $1"; exit 1; }
  echo "ok: $1"
}
for f in review/blind6/stream-pools/*.cu; do compile "$f" stream_pools.cu stream_pools.cu; done
for f in review/blind6/stream-ordered-pool/*.h; do compile "$f" stream_ordered_pool.h bench.cu exercises/day088/bench.cu; done
for f in review/blind6/ipc-pool/*.cu; do compile "$f" ipc_pool.cu ipc_pool.cu; done
for f in review/blind6/graph-alloc/*.cu; do compile "$f" graph_alloc.cu graph_alloc.cu; done
for f in review/blind6/peer-pool/*.cu; do compile "$f" peer_pool.cu peer_pool.cu; done
for f in review/blind6/heap-vs-pool/*.cu; do compile "$f" heap_vs_pool.cu heap_vs_pool.cu; done
for f in review/blind6/python-handoff/*.py; do python3 -m py_compile "$f" && echo "ok: $f"; done
find review/blind6/python-handoff -name __pycache__ -prune -exec rm -rf {} +
python3 review/blind6/gen-b/manifest.py
