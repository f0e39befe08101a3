#!/bin/bash
# gpu-sample.sh LESSONS CORPUS OUT [N]: on a machine with a GPU, runs a
# sample of N (default 16) notebooks of CORPUS (bench/notebooks/corpus/
# fetch.sh gathers it) with `lessons run --keep-going` beside a by-hand
# run of the same cells (byhand.py: no lessons, no Jupyter), and prints
# for each notebook a per-cell comparison (status by each, output the
# same once times, addresses and decimals are masked), then the totals.
# Everything lands under OUT: per notebook its course, both runs'
# workspaces, lessons.txt, byhand.json and compare.txt; summary.txt.
#
# The sample is the notebooks that build CUDA (%%writefile *.cu, !nvcc,
# %%cuda), spread over the corpus's repositories, in a fixed order.
#
# On the GPU machine (no Go, no network): build here, carry the binary,
# this folder and the corpus, and run from there, e.g.
#   CGO_ENABLED=1 go build -o /work/main/carry/notebooks/lessons ./cmd/lessons
#   cp -r bench/notebooks /work/main/carry/notebooks/bench
#   bench/notebooks/corpus/fetch.sh /work/main/carry/notebooks/corpus /work/.mirror
#   run: cd carry/notebooks && bench/gpu-sample.sh ./lessons corpus $OUT/sample 12
set -u
lessons=$(realpath "${1:?usage: gpu-sample.sh LESSONS CORPUS OUT [N]}")
corpus=$(realpath "${2:?usage: gpu-sample.sh LESSONS CORPUS OUT [N]}")
out=$(realpath -m "${3:?usage: gpu-sample.sh LESSONS CORPUS OUT [N]}")
n=${4:-16}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
# a home of its own (a notebook's ! lines run by hand), and pip failing at
# once where there is no network rather than retrying
mkdir -p "$out/home"
export LESSONS_CACHE="$out/cache" NO_COLOR=1 HOME="$out/home" PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# notebooks that build CUDA, round-robin over their repositories
mapfile -t sample < <(
	grep -rlE --include='*.ipynb' '%%writefile [^"]*\.cu|!nvcc|%%cuda' "$corpus" | sort |
	awk -v root="$corpus/" '{ r = substr($0, length(root) + 1); split(r, p, "/"); repo = p[1] "/" p[2]; k[repo]++; print k[repo] "\t" $0 }' |
	sort -t "$(printf '\t')" -k1,1n -s | cut -f2- | head -n "$n")

for nb in "${sample[@]}"; do
	name=$(basename "$nb" .ipynb | tr -c 'A-Za-z0-9_.\n-' '_')
	d="$out/$name"
	rm -rf "$d"
	mkdir -p "$d"
	echo "== $nb"
	"$lessons" import "$nb" --dir "$d/course" > /dev/null || { echo "import failed"; continue; }
	start=$(date +%s.%N)
	timeout 600 "$lessons" --course "$d/course" run 1 --keep-going --timeout 120s --workspace "$d/ws-lessons" > "$d/lessons.txt" 2>&1
	mid=$(date +%s.%N)
	timeout 600 python3 "$here/byhand.py" run "$nb" "$d/ws-byhand" > "$d/byhand.json" 2> "$d/byhand.err"
	end=$(date +%s.%N)
	python3 "$here/byhand.py" compare "$d/lessons.txt" "$d/byhand.json" | tee "$d/compare.txt"
	python3 -c "print(f'times: lessons {$mid - $start:.1f} s, by hand {$end - $mid:.1f} s'); print()"
done | tee "$out/run.txt"
# the totals, from every notebook's last line
awk '/ cells: .* with the same status/ { c += $1; s += $3; o += $8 } END { printf "%d notebooks sampled; %d code cells: %d with the same status as by hand, %d with the same output\n", n, c, s, o }' n="${#sample[@]}" "$out"/*/compare.txt | tee "$out/summary.txt"
