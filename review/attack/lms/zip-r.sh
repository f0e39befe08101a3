#!/bin/bash
# A class's folder zipped as zip -r makes it (an entry for each folder),
# with one student who handed in 2,100 files: before the fix, the whole
# class was refused as "one student's hand-in holds more than 2000 files".
# Usage: bash review/attack/lms/zip-r.sh LESSONS_BINARY (from the repository root)
set -eu
L=${1:-bin/lessons}
W=$(mktemp -d)
mkdir -p "$W/submissions/alice" "$W/submissions/bob" "$W/submissions/mallory"
cp solutions/day070/cross_stream.cu "$W/submissions/alice/"
cp exercises/day070/cross_stream.cu "$W/submissions/bob/"
for i in $(seq 1 2100); do : >"$W/submissions/mallory/f$i.txt"; done
(cd "$W" && zip -qr class.zip submissions)
"$L" grade unpack "$W/class.zip" --out "$W/class" | grep -v "^  ignored\|^  unmatched" | head -20
ls "$W/class"
for s in alice bob; do test -s "$W/class/$s/day070/cross_stream.cu" && echo "$s: kept" || echo "$s: NOT KEPT"; done
