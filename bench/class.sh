#!/usr/bin/env bash
# Generates a class of students (correct, partly done, untouched, wrong in
# each of the ways the checks must catch, and hostile), grades it with
# `lessons grade` cold and warm, grades the same files in a plain serial
# shell loop, and checks every grade against what each student was
# generated to be, and that the hostile ones changed nothing outside their
# sandbox. Needs a GPU, nvcc and python3.
# Usage: bench/class.sh LESSONS_BINARY COURSE_DIR [STUDENTS_PER_KIND]
# MODE=grade or MODE=serial does one half (each fits a 10-minute session);
# GRADE_FLAGS are passed to lessons grade (e.g. --per-gpu 4); WARM=0 skips
# the warm --regrade.
set -euo pipefail
bin=$(realpath "$1"); course=$(realpath "$2"); per=${3:-4}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/class.XXXXXX); chmod 755 "$work"
export LESSONS_CACHE=$work/cache
subs=$work/subs; book=$work/gradebook.db
now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }

sol() { echo "$course/solutions/$1"; }
ex() { echo "$course/exercises/$1"; }
BP=day068/block_pool.cu; AP=day069/async_pipeline.cu; GR=day072/growable.cu
variants=$course/checker/testdata/variants
victim=$subs/s00-correct/async_pipeline.cu
sock=/tmp/lessons-bench.sock

# kind: the three files (or - for none) and the expected statuses.
kinds=(
  "correct         $(sol $BP) $(sol $AP) $(sol $GR) passed passed passed"
  "partial         $(sol $BP) $(ex $AP)  -          passed failed missing"
  "untouched       $(ex $BP)  $(ex $AP)  $(ex $GR)  failed failed failed"
  "print_only      $(sol $BP) $variants/async_pipeline_print_only.cu $(sol $GR) passed failed passed"
  "sync_malloc     $(sol $BP) $variants/async_pipeline_sync_malloc.cu $(sol $GR) passed failed passed"
  "never_frees     $(sol $BP) $variants/async_pipeline_never_frees.cu $(sol $GR) passed failed passed"
  "default_stream  $(sol $BP) $variants/async_pipeline_default_stream.cu $(sol $GR) passed failed passed"
  "compile_error   $(sol $BP) COMPILE_ERROR $(sol $GR) passed failed passed"
  "fork_bomb       $(sol $BP) $here/class/fork_bomb.cu $(sol $GR) passed failed passed"
  "spin_cpu        $(sol $BP) $here/class/spin_cpu.cu $(sol $GR) passed failed passed"
  "spin_gpu        $(sol $BP) $here/class/spin_gpu.cu $(sol $GR) passed failed passed"
  "print_flood     $(sol $BP) $here/class/print_flood.cu $(sol $GR) passed failed passed"
  "write_outside   $(sol $BP) $here/class/write_outside.cu $(sol $GR) passed failed passed"
  "read_others     $(sol $BP) $here/class/read_others.cu $(sol $GR) passed failed passed"
  "crash_context   $(sol $BP) $here/class/crash_context.cu $(sol $GR) passed failed passed"
  "mem_hog         $(sol $BP) $here/class/mem_hog.cu $(sol $GR) passed failed passed"
  "tty_inject      $(sol $BP) $here/class/tty_inject.cu $(sol $GR) passed failed passed"
  "unix_socket     $(sol $BP) $here/class/unix_socket.cu $(sol $GR) passed failed passed"
  "include_secret  $(sol $BP) $here/class/include_secret.cu $(sol $GR) passed failed passed"
  "linked_folder   $(sol $BP) -                                $(sol $GR) passed failed passed"
)
# Forgers of the statistics record (internal/exercise/testdata/hostile):
# each prints what a correct program prints and goes around the library.
for h in forge_file forge_fd dup2_fd exit_early dlsym_runtime driver_entry dlmopen_runtime preinit_key; do
  kinds+=("$h $(sol $BP) $course/internal/exercise/testdata/hostile/$h.cu $(sol $GR) passed failed passed")
done
mkdir -p "$subs"
: > "$work/expected.tsv"
for line in "${kinds[@]}"; do read -r kind _ <<<"$line"; echo "$kind"; done > "$work/kinds.txt"
n=0
for k in $(seq 0 $((per - 1))); do
  for line in "${kinds[@]}"; do
    read -r kind bp ap gr ebp eap egr <<<"$line"
    name=$(printf 's%02d-%s' "$n" "$kind"); n=$((n + 1))
    mkdir -p "$subs/$name"
    put() { # file, name: every student's copy differs (a comment), as real ones do
      [ "$1" = - ] && return
      if [ "$1" = COMPILE_ERROR ]; then
        sed 's/cudaStreamSynchronize(/cudaStreamSynchronize(;/' "$(sol $AP)" > "$subs/$name/$2"
      else
        sed -e "s|@CLASSMATE@|$victim|; s|@GRADEBOOK@|$book|; s|@SOLUTION@|$(sol $AP)|; s|@SECRET@|$course/solutions/day069/async_pipeline.toml|; s|@SOCKET@|$sock|" "$1" > "$subs/$name/$2"
      fi
      echo "// handed in by $name" >> "$subs/$name/$2"
    }
    put "$bp" block_pool.cu; put "$ap" async_pipeline.cu; put "$gr" growable.cu
    # A folder that is a link to a classmate's: never followed.
    [ "$kind" = linked_folder ] && ln -s ../s00-correct "$subs/$name/day069"
    printf '%s\tblock-pool\t%s\n%s\tasync-pipeline\t%s\n%s\tvmm-growable\t%s\n' "$name" "$ebp" "$name" "$eap" "$name" "$egr" >> "$work/expected.tsv"
  done
done
echo "class: $n students in $subs"
victim_sum=$(sha256sum "$victim" | cut -d' ' -f1)
rm -f /tmp/lessons-pwned

mode=${MODE:-both}
if [ "$mode" = generate ]; then echo "$work"; exit 0; fi
cold=0 resume=0 warm=0 serial=0
if [ "$mode" != serial ]; then
# 1. lessons grade, cold: an empty compile cache and a new gradebook.
"$bin" cache clean >/dev/null
# Listeners the sandboxed programs must not reach: a Unix socket any user
# may connect to, one in the abstract namespace, UDP on the loopback.
rm -f "$sock"
python3 - "$sock" "$work/listener.txt" <<'PY' &
import os, signal, socket, sys, threading
path, report = sys.argv[1:3]
n = {"unix": 0, "abstract": 0, "udp": 0}
def serve(s, kind):
    while True:
        try:
            if kind == "udp":
                s.recvfrom(16)
            else:
                s.accept()[0].close()
            n[kind] += 1
        except OSError:
            return
u = socket.socket(socket.AF_UNIX); u.bind(path); os.chmod(path, 0o666); u.listen(64)
a = socket.socket(socket.AF_UNIX); a.bind("\0lessons-bench"); a.listen(64)
d = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); d.bind(("127.0.0.1", 47123))
for s, k in ((u, "unix"), (a, "abstract"), (d, "udp")):
    threading.Thread(target=serve, args=(s, k), daemon=True).start()
def done(*_):
    open(report, "w").write(" ".join(f"{k}={v}" for k, v in n.items()) + "\n")
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
signal.pause()
PY
listener=$!
sleep 0.5
t0=$(now); "$bin" --course "$course" grade "$subs" block-pool async-pipeline vmm-growable --gradebook "$book" ${GRADE_FLAGS:-} >"$work/grade-cold.txt" 2>"$work/grade-cold.err" || echo "grade exited $?"; t1=$(now)
cold=$(calc "$t1 - $t0")
# 2. again, nothing changed: everything is skipped.
t0=$(now); "$bin" --course "$course" grade "$subs" block-pool async-pipeline vmm-growable --gradebook "$book" >"$work/grade-resume.txt" 2>/dev/null || true; t1=$(now)
resume=$(calc "$t1 - $t0")
# 3. warm: --regrade with the compile cache full (WARM=0 skips it).
if [ "${WARM:-1}" = 1 ]; then
t0=$(now); "$bin" --course "$course" grade "$subs" block-pool async-pipeline vmm-growable --gradebook "$book" --regrade ${GRADE_FLAGS:-} >"$work/grade-warm.txt" 2>/dev/null || true; t1=$(now)
warm=$(calc "$t1 - $t0")
fi
"$bin" --course "$course" grade export --gradebook "$book" --csv "$work/grades.csv" --json "$work/grades.json" 2>/dev/null
"$bin" --course "$course" grade feedback --gradebook "$book" --out "$work/feedback" >/dev/null

fi
if [ "$mode" != grade ]; then
# 4. The same files built and run one after another in a plain shell loop
#    (each run as nobody with a process limit, a time limit and its output
#    file cut at 1 MiB, so that the hostile ones end as they do when graded).
nvcc -x c++ -shared -Xcompiler -fPIC -cudart none -o "$work/liballocstats.so" "$course/kernels/allocstats.cu"
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
t0=$(now)
for s in $(ls "$subs"); do
  for f in block_pool.cu async_pipeline.cu growable.cu; do
    [ -f "$subs/$s/$f" ] || continue
    d=$work/plain/$s-${f%.cu}; mkdir -p "$d"; cp "$subs/$s/$f" "$d/"
    flags=""; [ "$f" = growable.cu ] && flags=-lcuda
    (cd "$d" && nvcc -cudart shared -arch="$arch" $flags -o prog "$f" >/dev/null 2>&1) || continue
    chown -R 65534:65534 "$d"
    (cd "$d" && timeout -s KILL 10 setpriv --reuid=65534 --regid=65534 --clear-groups \
      bash -c "ulimit -u 256 -f 1024; LD_PRELOAD=$work/liballocstats.so LESSONS_STATS=$d/stats.bin ./prog >out.txt 2>&1") || true
    pkill -KILL -u 65534 || true
  done
done
t1=$(now)
serial=$(calc "$t1 - $t0")
rm -f /tmp/lessons-pwned
fi
if [ "$mode" != serial ]; then
# 5. Every grade against what the student was generated to be.
python3 - "$work" "$victim" "$victim_sum" <<'PY'
import json, sqlite3, sys, hashlib, os
work, victim, victim_sum = sys.argv[1:4]
grades = json.load(open(f"{work}/grades.json"))
got = {(s["id"], x): g["status"] for s in grades["students"] for x, g in s["exercises"].items()}
reason = {(s["id"], x): g.get("reason", "") for s in grades["students"] for x, g in s["exercises"].items()}
bad = 0
n = 0
for line in open(f"{work}/expected.tsv"):
    st, x, want = line.split()
    n += 1
    if got.get((st, x)) != want:
        bad += 1
        print(f"MISMATCH {st} {x}: graded {got.get((st, x))}, generated to be {want} ({reason.get((st, x))})")
print(f"grades checked: {n}, as generated: {n - bad}, mismatches: {bad}")
for st in sorted({s for s, _ in got}):
    kind = st.split("-", 1)[1]
    if int(st[1:st.index("-")]) < len(open(f"{work}/kinds.txt").read().split()):
        print(f"  {kind:15} async-pipeline: {got[(st, 'async-pipeline')]:7} {reason[(st, 'async-pipeline')][:110]}")
db = sqlite3.connect(f"{work}/gradebook.db")
print("gradebook integrity:", db.execute("PRAGMA integrity_check").fetchone()[0])
for (out,) in db.execute("SELECT output FROM grades WHERE exercise = 'async-pipeline' AND (student LIKE 's12-%' OR student LIKE 's13-%' OR student LIKE 's16-%' OR student LIKE 's17-%' OR student LIKE 's18-%')"):
    print("  hostile output:", out.strip().replace("\n", " | ")[:400])
leaks = db.execute("SELECT count(*) FROM grades WHERE output GLOB '*: GOT *' OR output GLOB '*: DONE*'").fetchone()[0]
print("hostile reads or writes that succeeded:", leaks)
print("classmate's file unchanged:", hashlib.sha256(open(victim, "rb").read()).hexdigest() == victim_sum)
print("file written in /tmp:", os.path.exists("/tmp/lessons-pwned"))
secret = [out for (out,) in db.execute("SELECT output FROM grades WHERE student LIKE '%-include_secret' AND (output LIKE '%hidden_run%' OR output LIKE '%20 on 3%')")]
print("secret spec quoted to a student:", len(secret))
PY
kill "$listener" 2>/dev/null; wait "$listener" 2>/dev/null
echo "reached outside the sandbox (connections, packets): $(cat "$work/listener.txt" 2>/dev/null || echo 'listener gone')"
rm -f "$sock"
fi
# Zombies (killed, waiting for init to reap them) are counted apart.
echo "leftover processes of the workers' users: $(ps -eo uid=,stat= | awk '$1>=61000 && $1<62000 && $2 !~ /^Z/' | wc -l) running, $(ps -eo uid=,stat= | awk '$1>=61000 && $1<62000 && $2 ~ /^Z/' | wc -l) zombies"
echo "cgroups left: $(ls -d /sys/fs/cgroup/lessons-* /sys/fs/cgroup/*/lessons-* 2>/dev/null | wc -l)"
[ -f "$work/grade-cold.txt" ] && tail -3 "$work/grade-cold.txt"
printf '\n%-34s %8s\n' "what ($n students, 3 exercises)" "wall s"
printf '%-34s %8.1f\n' "lessons grade, cold" "$cold" "lessons grade, unchanged (resume)" "$resume" "lessons grade --regrade, warm cache" "$warm" "plain serial shell loop" "$serial"
[ "$mode" = both ] && printf '%-34s %8.1fx\n' "speed-up, cold vs serial" "$(calc "$serial / $cold")"
echo "work folder: $work"
