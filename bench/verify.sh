#!/usr/bin/env bash
# `lessons verify` cold, next to a plain serial shell loop doing the same
# builds and runs file by file, on a machine with a GPU and nvcc.
# Usage: bench/verify.sh LESSONS_BINARY COURSE_DIR [REPEATS]
# VERIFY_FLAGS are passed to lessons verify (e.g. --per-gpu 4); SERIAL=0
# skips the serial loop.
set -euo pipefail
bin=$(realpath "$1"); src=$(realpath "$2"); reps=${3:-3}
work=$(mktemp -d); mkdir -p "$work/course"
cp -r "$src/course.toml" "$src/lessons" "$src/exercises" "$src/solutions" "$work/course/"
cd "$work/course"
export LESSONS_CACHE=$work/cache
now() { echo "$EPOCHREALTIME"; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Cold: an empty compile cache and no workspaces, each time.
for i in $(seq "$reps"); do
  rm -rf "$LESSONS_CACHE" .lessons
  t0=$(now); "$bin" verify ${VERIFY_FLAGS:-} > "$work/verify.txt"; t1=$(now)
  awk "BEGIN { print $t1 - $t0 }" >> "$work/cold"
done
tail -1 "$work/verify.txt"

if [ "${SERIAL:-1}" = 0 ]; then
  echo "verify cold ${VERIFY_FLAGS:-}: $(tr '\n' ' ' < "$work/cold") (median $(median < "$work/cold"))"
  rm -rf "$work"; exit 0
fi

# The same files, one after the other: every lesson cell (as lessons run
# writes them) built and run, then every exercise and solution built with
# the shared runtime and run with the statistics library, as check does
# (all linked with -lcuda, which the VMM programs need).
for day in $(awk -F'"' '/^file = /{print $2}' course.toml | sed 's|lessons/day0*\([0-9]*\)-.*|\1|'); do
  "$bin" run "$day" > /dev/null 2>&1 || true
done
lib=$LESSONS_CACHE/kernels/liballocstats.so
cells=$(ls .lessons/work/*/*.cu); files=$(awk -F'"' '/^(student|solution) = /{print $2}' course.toml)
mkdir -p "$work/serial"
for i in $(seq "$reps"); do
  t0=$(now)
  for f in $cells; do
    (cd "$(dirname "$f")" && nvcc -arch=sm_90 -o "$work/serial/prog" "$(basename "$f")" -lcuda && "$work/serial/prog" > /dev/null) || true
  done
  for f in $files; do
    # A multi-file exercise builds with the files its spec names (copied
    # beside it, as lessons does), found beside the file, else beside the
    # exercise's own.
    d=$(dirname "$f"); x=exercises/${d#*/}; spec=$x/$(basename "${f%.*}").toml
    rm -rf "$work/src"; mkdir -p "$work/src"; cp "$f" "$work/src/"
    srcs=""; case $f in *.cu) srcs=$(basename "$f") ;; esac
    for g in $(awk -F'"' '/^files = /{for (i = 2; i < NF; i += 2) print $i}' "$spec"); do
      if [ -f "$d/$g" ]; then cp "$d/$g" "$work/src/"; else cp "$x/$g" "$work/src/"; fi
      case $g in *.cu) srcs="$srcs $g" ;; esac
    done
    (cd "$work/src" && nvcc -arch=sm_90 -cudart shared -o "$work/serial/prog" $srcs -lcuda) && (cd "$work/serial" && LD_PRELOAD=$lib LESSONS_STATS=s.bin timeout 10 ./prog > /dev/null 2>&1) || true
    # and under compute-sanitizer where the spec asks for it
    if grep -q '^sanitizer = "memcheck"' "$spec"; then
      (cd "$work/serial" && timeout 40 compute-sanitizer --tool memcheck --leak-check full --log-file san.log ./prog > /dev/null 2>&1) || true
    fi
  done
  t1=$(now)
  awk "BEGIN { print $t1 - $t0 }" >> "$work/serial.txt"
done
c=$(median < "$work/cold"); s=$(median < "$work/serial.txt")
echo "verify cold ${VERIFY_FLAGS:-}: $(tr '\n' ' ' < "$work/cold")"
echo "serial loop ($(echo $cells | wc -w) cells, $(echo $files | wc -w) files): $(tr '\n' ' ' < "$work/serial.txt")"
printf '| %s | %.2f | %.2f | %.1fx |\n' "${VERIFY_FLAGS:-default}" "$c" "$s" "$(awk "BEGIN { print $s / $c }")"
rm -rf "$work"
