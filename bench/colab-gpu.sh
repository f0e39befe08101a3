#!/bin/bash
# lessons export --ipynb of a course with [notebook], run on the GPU
# machine as Colab runs it: the first cell installs lessons (the lead's
# binary, as a release on file://) and the course (this repository's, as
# a git repository on file://); the check cell runs the real lessons
# check on the GPU. Day 68's block-pool: untouched (must fail its
# statistics' checks), then completed with its solution (must pass).
set -u
BENCH=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/firsthour-out}
mkdir -p "$OUT"
HERE=$(pwd)
LESSONS=${LESSONS:-$(command -v lessons)}
W=$(mktemp -d)
export PATH=/usr/local/cuda/bin:$PATH
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@example.com GIT_CONFIG_GLOBAL=/dev/null
{
mkdir -p "$W/repo"
cp -r course.toml lessons exercises solutions "$W/repo/"
printf '\n[notebook]\nbinary = "file://%s"\nrepository = "file://%s/repo"\nroot = "%s/colab"\n' "$LESSONS" "$W" "$W" >> "$W/repo/course.toml"
git -C "$W/repo" init -q && git -C "$W/repo" add . && git -C "$W/repo" commit -qm course || echo "NO GIT"
"$LESSONS" --course "$W/repo" export --ipynb "$W/nb"
# Where this machine lacks git or curl, what the install cell would fetch
# is put in place, and the cell keeps it (it skips what is there).
if ! command -v git >/dev/null; then echo "NO GIT: the course copied in place"; mkdir -p "$W/colab/course/.git"; cp -r "$W/repo/." "$W/colab/course/"; fi
if ! command -v curl >/dev/null; then echo "NO CURL: lessons copied in place"; mkdir -p "$W/colab/bin"; cp "$LESSONS" "$W/colab/bin/lessons"; fi
cp "$W/nb/day068-memory-pools.ipynb" "$OUT/"
cd "$W"
echo "=== untouched"
timeout 200 python3 "$BENCH/colab-nbrun.py" nb/day068-memory-pools.ipynb
echo "=== completed with the solution"
timeout 200 python3 "$BENCH/colab-nbrun.py" nb/day068-memory-pools.ipynb "block_pool.cu=$W/repo/solutions/day068/block_pool.cu"
echo "=== Day 77, a Python exercise (CuPy, torch), completed with the solution"
timeout 120 python3 "$BENCH/colab-nbrun.py" nb/day077-python-pools.ipynb "handoff.py=$W/repo/solutions/day077/handoff.py"
echo "=== nbclient"
if python3 -c 'import nbclient' 2>/dev/null; then
  timeout 200 jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout=150 --output run.ipynb nb/day068-memory-pools.ipynb && grep -o 'block-pool[^"]*\|✓[^"]*\|✗[^"]*' nb/run.ipynb
else
  echo "no nbclient on this machine"
fi
} 2>&1 | tee "$OUT/firsthour.txt"
