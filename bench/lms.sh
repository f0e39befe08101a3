#!/usr/bin/env bash
# From the LMS and back on a real class: a class of students (each
# exercise's solution, its stub, or nothing) is handed out as Canvas
# would download it (names run together, late flags, uploads again with
# -N, files renamed as browsers do, renamed outright, zipped inside the
# zip), unpacked, checked to be the very files of the folder layout,
# graded both ways, and the grades compared; then written back as
# Canvas's import CSV. Needs python3; grading needs a GPU and nvcc
# (GRADE=0 stops after the unpacked files are compared).
# Usage: bench/lms.sh LESSONS_BINARY COURSE_DIR [STUDENTS]
set -euo pipefail
bin=$(realpath "$1"); course=$(realpath "$2"); n=${3:-24}
work=$(mktemp -d /tmp/lms.XXXXXX)
export LESSONS_CACHE=$work/cache
python3 - "$course" "$work" "$n" <<'PY'
import io, os, re, sys, zipfile
course, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
# The exercises' files, in order (no tomllib: Python 3.6 will do).
xs = []
for block in open(f"{course}/course.toml").read().split("[[exercise]]")[1:]:
    x = dict(re.findall(r'^(student|solution) = "([^"]+)"', block, re.M))
    xs.append(x)
subs = f"{work}/subs"
z = zipfile.ZipFile(f"{work}/canvas.zip", "w", zipfile.ZIP_DEFLATED)
roster = ["id,name,email,lms_id,section"]
for i in range(n):
    sid = f"s{i:02d}"
    uid, subid = 1000 + i, 50000 + i
    late = "late_" if i % 5 == 0 else ""
    pre = f"student{sid}_{late}{uid}_{subid}_"
    roster.append(f"{sid},Student {sid},{sid}@uni.edu,{uid},{'AB'[i % 2]}")
    nested = []
    for j, x in enumerate(xs):
        kind = (i + j) % 3  # 0 solution, 1 stub, 2 nothing
        if kind == 2:
            continue
        src = x["solution"] if kind == 0 else x["student"]
        data = open(f"{course}/{src}", "rb").read()
        rel = x["student"].removeprefix("exercises/")
        os.makedirs(os.path.dirname(f"{subs}/{sid}/{rel}"), exist_ok=True)
        open(f"{subs}/{sid}/{rel}", "wb").write(data)
        base = os.path.basename(rel)
        stem, ext = os.path.splitext(base)
        how = (i * 7 + j) % 5
        if how == 0:   # as it is
            z.writestr(pre + base, data)
        elif how == 1: # an older upload, then this one again (-1)
            z.writestr(pre + base, b"// an older try\n")
            z.writestr(pre + f"{stem}-1{ext}", data)
        elif how == 2: # as a browser renames a second download
            z.writestr(pre + f"{stem} (1){ext}", data)
        elif how == 3: # a name of the student's own
            z.writestr(pre + f"my_exercise_{j}{ext}", data)
        else:          # in a zip of the day's folder
            nested.append((rel, data))
    if nested:
        b = io.BytesIO()
        with zipfile.ZipFile(b, "w") as nz:
            for rel, data in nested:
                nz.writestr(rel, data)
        z.writestr(pre + "work.zip", b.getvalue())
    os.makedirs(f"{subs}/{sid}", exist_ok=True)
z.close()
open(f"{work}/roster.csv", "w").write("\n".join(roster) + "\n")
PY
cd "$course"
"$bin" grade unpack "$work/canvas.zip" --out "$work/unpacked" --roster "$work/roster.csv" 2>"$work/unpack.txt"
cat "$work/unpack.txt"
if diff -r -x roster.csv "$work/subs" "$work/unpacked"; then
  echo "unpacked: the very files of the folder layout"
else
  echo "unpacked: NOT the files of the folder layout"; exit 1
fi
[ "${GRADE:-1}" = 0 ] && exit 0
t0=$(date +%s.%N)
"$bin" grade "$work/subs" --gradebook "$work/folder.db" >"$work/folder.txt" 2>&1 || true
t1=$(date +%s.%N)
"$bin" grade "$work/canvas.zip" --roster "$work/roster.csv" --gradebook "$work/zip.db" >"$work/zip.txt" 2>&1 || true
t2=$(date +%s.%N)
"$bin" grade export --gradebook "$work/folder.db" --csv "$work/folder.csv" --json '' 2>/dev/null
"$bin" grade export --gradebook "$work/zip.db" --csv "$work/zip.csv" --json '' --canvas "$work/canvas.csv" 2>/dev/null
tail -n 2 "$work/zip.txt" | head -n 1
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "folder: %.1f s, zip: %.1f s\n", b - a, c - b }'
if cmp "$work/folder.csv" "$work/zip.csv"; then
  echo "grades: the zip's equal the folder's ($(($(wc -l <"$work/zip.csv") - 1)) students)"
else
  echo "grades: they differ"; diff "$work/folder.csv" "$work/zip.csv"; exit 1
fi
head -n 4 "$work/canvas.csv"
echo "work: $work"
