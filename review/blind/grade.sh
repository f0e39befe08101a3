#!/bin/bash
# Grades the blind submissions of branch blind (issue 36) as a class, the
# way the issue graded the first sixty: lessons grade with no flags, public
# and hidden checks. Each file of review/blind/<folder>/ becomes a student
# holding only that exercise's file. Run from the root of merged main; on
# nvidia-h200-x2 for peer-pool (with one GPU it is reported as not run).
# Writes under $OUT: gpus.txt, grade.log, grades.csv, grades.json,
# feedback/ (hidden checks shown), and prints each student's first failed
# check. Optional: SETS="peer-pool python-handoff" to grade fewer folders,
# GRADE_TIMEOUT (95 s) for the grade itself.
set -u
OUT=${OUT:-/tmp/blind-out}
L=${LESSONS:-carry/lead/lessons}
export PATH=/usr/local/cuda/bin:$PATH
# folder exercise file
table="peer-pool peer-pool peer_pool.cu
python-handoff python-handoff handoff.py
graph-alloc-b graph-alloc graph_alloc.cu
vmm-growable-b vmm-growable growable.cu
stream-ordered-pool-b stream-ordered-pool stream_ordered_pool.h
strict-pool-b strict-pool strict_pool.cu
stream-pools-b stream-pools stream_pools.cu"
sets=${SETS:-$(echo "$table" | cut -d' ' -f1)}
class=$(mktemp -d)
exercises=""
while read -r folder ex file; do
  case " $(echo $sets) " in *" $folder "*) ;; *) continue ;; esac
  exercises="$exercises $ex"
  for f in review/blind/$folder/correct.* review/blind/$folder/wrong-*; do
    b=$(basename "$f"); s="$folder--${b%.*}"
    mkdir -p "$class/$s"; cp "$f" "$class/$s/$file"
  done
done <<< "$table"
mkdir -p "$OUT"
{ nvidia-smi -L; python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
  # Does the variable's new name (PyTorch 2.8 on, the old one "deprecated")
  # choose the backend? pytorch/pytorch#183387 found it ignored for
  # expandable_segments in 2.9.1. A student who follows the warning uses it.
  for v in PYTORCH_ALLOC_CONF PYTORCH_CUDA_ALLOC_CONF; do
    env $v=backend:cudaMallocAsync python3 -c 'import torch; torch.zeros(1, device="cuda"); print("'$v'=backend:cudaMallocAsync ->", torch.cuda.get_allocator_backend())'
  done; } > "$OUT/gpus.txt" 2>&1
cat "$OUT/gpus.txt"
book="$OUT/gradebook.db"
timeout ${GRADE_TIMEOUT:-95} "$L" grade "$class" $exercises --gradebook "$book" > "$OUT/grade.log" 2>&1
echo "grade rc=$?" >> "$OUT/grade.log"
"$L" grade export --gradebook "$book" --csv "$OUT/grades.csv" --json "$OUT/grades.json" >> "$OUT/grade.log" 2>&1
"$L" grade feedback --gradebook "$book" --hidden show --out "$OUT/feedback" >> "$OUT/grade.log" 2>&1
# one line per student: its own exercise's result and first failed check
for f in "$OUT"/feedback/*.md; do
  s=$(basename "$f" .md)
  r=$(grep -m1 -E '^(Passed|Failed|Not run|The grader)' "$f" | cut -c1-90)
  x=$(grep -m1 '✗' "$f" | sed 's/^- //' | cut -c1-110)
  echo "$s: $r ${x}"
done
tail -5 "$OUT/grade.log"
