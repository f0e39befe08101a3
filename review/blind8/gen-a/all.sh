#!/bin/bash
# Writes this half's 35 files again from the student files and compiles
# them (nvcc 11.8, a few minutes), then the manifest.
# Usage: bash review/blind8/gen-a/all.sh
cd "$(dirname "$0")" || exit 1
for g in block_pool async_pipeline pool_reuse cross_stream strict_pool growable pool_resource; do
  python3 "$g.py" || exit 1
done
python3 manifest.py > ../MANIFEST-A.md
bash compile.sh
