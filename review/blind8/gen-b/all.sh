#!/bin/bash
# Rewrites blind8b's 35 files from the student files (gen-b/g_<exercise>.py
# through gen-b/mk.py), compiles each beside its exercise's other given files
# (gen-b/compile.sh), and rewrites MANIFEST-B.md (gen-b/manifest.py).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
for g in g_*.py; do python3 "$g"; done
./compile.sh
python3 manifest.py > ../MANIFEST-B.md
