#!/bin/sh
# build.sh builds bin/lessons from this checkout and says what it does
# while it does it. The first build of a fresh clone compiles every
# dependency: a minute or two on two cores, most of it modernc.org/sqlite,
# the pure-Go SQLite driver that lessons grade keeps its gradebook in (one
# binary for every command, so every command links it). go build alone
# prints nothing all that time; go build -v names each package as it is
# compiled, which this script counts on one line on a terminal.
set -e
cd "$(dirname "$0")/.."
echo "lessons: building bin/lessons. The first build compiles every dependency: a minute or two on two cores, most of it the SQLite driver that lessons grade uses. Later builds take seconds." >&2
tty=0
[ -t 2 ] && tty=1
{ go build -v -o bin/lessons ./cmd/lessons 2>&1 && s=0 || s=$?; echo "build-status $s"; } | awk -v tty="$tty" '
  /^build-status / { status = $2; next }
  {
    n++
    if (tty && $0 !~ /^#|:/) { printf "\r\033[K  [%d] %s", n, $0 > "/dev/stderr" }
    else { print "  " $0 > "/dev/stderr" }
  }
  END {
    if (tty) printf "\r\033[K" > "/dev/stderr"
    exit status
  }'
go build -o bin/lessons-nvcc ./cmd/lessons-nvcc # the nvcc wrapper a cell runs (internal/nvccwrap)
echo "lessons: built bin/lessons. Try: bin/lessons show 68" >&2
