#!/bin/bash
# run.sh: on the GPU machine, runs five notebooks with `lessons run
# --keep-going` (nvcc4jupyter's version 2: %%cuda --name, %%cuda_run,
# !nvcc ./src/x.cu; Colab's magics under comment lines) and compares
# each CUDA cell's output with what the notebook recorded where it ran.
#   bash carry/nbworld/run.sh   (LESSONS=path/to/lessons, OUT=folder; at most 22 s a notebook)
set -u
here=$(cd "$(dirname "$0")" && pwd)
L=$(realpath "${LESSONS:-$(command -v lessons)}")
out=${OUT:-/tmp/nbworld}/nbworld
mkdir -p "$out/home"
export PATH=/usr/local/cuda/bin:$PATH NO_COLOR=1 HOME=$out/home LESSONS_CACHE=$out/cache PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
for nb in "$here"/nb/*.ipynb; do
	n=$(basename "$nb" .ipynb)
	mkdir -p "$out/$n"
	"$L" import "$nb" --dir "$out/$n/c" > "$out/$n/import.txt" 2>&1 || { echo "$n: import failed"; cat "$out/$n/import.txt"; continue; }
	lesson=$(ls "$out/$n/c/lessons" | head -1)
	timeout 22 "$L" --course "$out/$n/c" run "${lesson%.ipynb}" --keep-going --workspace "$out/$n/ws" > "$out/$n/run.txt" 2>&1
	echo "== $n: $(grep -E '^[0-9]+ cells:' "$out/$n/run.txt")"
	python3 "$here/compare.py" "$nb" "$out/$n/run.txt"
done
