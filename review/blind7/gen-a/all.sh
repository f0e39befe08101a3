#!/bin/bash
# Writes this half's files again from their specs (gen-a/<exercise>.py:
# the student file with exact edits, each matching once), then compiles
# every one with nvcc 11.8 (compile.sh) and writes MANIFEST-A.md's text
# to stdout for review/blind7/MANIFEST.md's first-half section.
set -e
cd "$(dirname "$0")"
for s in block_pool async_pipeline pool_reuse cross_stream strict_pool growable pool_resource; do python3 gen.py $s.py; done
bash compile.sh
