#!/usr/bin/env bash
# ownlines.sh [COURSE]: for each exercise of COURSE/course.toml (default:
# the current folder), the lines of the student's own: the lines of its
# solution that its student file does not have (diff), neither blank nor
# only a comment (the region markers, the TODO text). A statement spread
# over two lines counts two. Prints a markdown table, fewest first, and
# names the exercises under 15 lines (issue 29: "tens of lines of their
# own"); exit 1 when a file it names is missing.
set -euo pipefail
root=${1:-.}
manifest="$root/course.toml"
[ -f "$manifest" ] || { echo "ownlines: no $manifest: pass the folder that holds course.toml" >&2; exit 2; }

# id, lesson, student and solution of each [[exercise]] table, one a line.
exercises=$(awk '
  function flush() { if (id != "") print id "\t" day(lesson) "\t" student "\t" solution; id = lesson = student = solution = "" }
  # day is the day of the lesson an exercise names: by day (70, day070)
  # or by the slug of its file (lessons/day070-stream-ordered.md).
  function day(l,   f, d) {
    if (l ~ /^(day)?[0-9]+$/) { sub(/^day/, "", l); return l + 0 }
    for (f in files) if (f ~ ("day[0-9]+-" l "\\.")) { d = f; sub(/^.*day/, "", d); sub(/-.*/, "", d); return d + 0 }
    return l
  }
  /^\[\[/ { flush(); inex = ($0 ~ /^\[\[exercise\]\]/); inlesson = ($0 ~ /^\[\[lesson\]\]/); next }
  inlesson && /^[ \t]*file[ \t]*=/ { f = $0; sub(/^[^"]*"/, "", f); sub(/".*$/, "", f); files[f] = 1; next }
  !inex { next }
  { line = $0; sub(/[ \t]*#.*$/, "", line) }
  line ~ /^[ \t]*(id|lesson|student|solution)[ \t]*=/ {
    key = line; sub(/[ \t]*=.*/, "", key); gsub(/[ \t]/, "", key)
    val = line; sub(/^[^=]*=[ \t]*"/, "", val); sub(/".*$/, "", val)
    if (key == "id") id = val; else if (key == "lesson") lesson = val
    else if (key == "student") student = val; else solution = val
  }
  END { flush() }' "$manifest")

rows="" status=0
while IFS=$'\t' read -r id lesson student solution; do
  [ -n "$id" ] || continue
  for f in "$student" "$solution"; do
    [ -f "$root/$f" ] || { echo "ownlines: exercise $id names $f, which is missing" >&2; status=1; continue 2; }
  done
  n=$( (diff "$root/$student" "$root/$solution" || true) | sed -n 's/^> //p' |
    awk '{ t = $0; gsub(/^[ \t]+|[ \t\r]+$/, "", t) }
         t == "" || t ~ /^(\/\/|\/\*|\*\/|\*( |$))/ { next }
         { n++ } END { print n + 0 }')
  rows+="$n"$'\t'"$id"$'\t'"$lesson"$'\t'"$solution"$'\n'
done <<<"$exercises"

echo "| exercise | day | solution | lines of the student's own |"
echo "| --- | --- | --- | ---: |"
printf '%s' "$rows" | sort -n -k1,1 | awk -F'\t' '{ printf "| %s | %s | `%s` | %d |\n", $2, $3, $4, $1 }'
small=$(printf '%s' "$rows" | awk -F'\t' '$1 < 15 { printf "%s%s (%d)", sep, $2, $1; sep = ", " }')
[ -z "$small" ] || echo "under 15 lines: $small" >&2
exit $status
