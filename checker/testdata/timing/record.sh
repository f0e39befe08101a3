#!/usr/bin/env bash
# Records the timing fixtures on a machine with a GPU and nvcc, from the
# repository's root:
#   checker/testdata/timing/record.sh RECORD_BINARY OUT_DIR
# RECORD_BINARY is ./checker/testdata/timing/record built
# (go build -o rec ./checker/testdata/timing/record). For each mode of
# streams.cu: OUT_DIR/MODE.bin, the verified record, and a line of its
# statistics on stdout.
set -euo pipefail
rec=$(realpath "$1"); out=$(realpath -m "$2"); mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" -x c++ -shared -Xcompiler -fPIC -cudart none -o "$work/liballocstats.so" "$root/kernels/allocstats.cu"
"$nvcc" -arch=sm_90 -cudart shared -o "$work/streams" "$here/streams.cu"
for mode in concurrent serial one default graph reset many backlog; do
  "$rec" "$work/liballocstats.so" "$out/$mode.bin" "$work/streams" "$mode"
done
rm -rf "$work"
