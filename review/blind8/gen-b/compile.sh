#!/bin/bash
# Compiles every file of blind8b's exercise folders with nvcc 11.8 beside the
# exercise's other given files; the correct files also under -Wall,-Wextra
# (a warning fails them); the Python files through py_compile.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
here="$root/review/blind8"
status=0
student() {
  python3 -c '
import tomllib, sys
for x in tomllib.load(open(sys.argv[1], "rb")).get("exercise", []):
    if x["id"] == sys.argv[2]: print(x["student"])' "$root/course.toml" "$1"
}
for ex in ${SETS:-stream-pools stream-ordered-pool ipc-pool graph-alloc peer-pool heap-vs-pool python-handoff}; do
  path=$(student "$ex"); dir=$(dirname "$path"); file=$(basename "$path")
  for f in "$here/$ex"/correct.* "$here/$ex"/wrong-*; do
    [ -e "$f" ] || continue
    t=$(mktemp -d)
    cp "$root/$dir"/* "$t"/; cp "$f" "$t/$file"
    case "$file" in
      *.py) out=$(python3 -m py_compile "$t/$file" 2>&1) ;;
      *)
        src="$t/$file"; [ "${file##*.}" = h ] && src="$t/bench.cu"
        flags=""; case "$(basename "$f")" in correct.*) flags="-Xcompiler -Wall,-Wextra -Werror all-warnings" ;; esac
        out=$(cd "$t" && nvcc -arch=sm_90 -std=c++17 $flags -c "$src" -o /dev/null 2>&1) ;;
    esac
    rc=$?
    if [ $rc -ne 0 ] || [ -n "$out" ]; then echo "FAIL $ex/$(basename "$f")"; echo "$out" | head -20; status=1; else echo "ok   $ex/$(basename "$f")"; fi
    rm -rf "$t"
  done
done
exit $status
