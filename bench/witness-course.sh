#!/usr/bin/env bash
# The outside witness against the record over every program of the course
# (issue 37), on a GPU machine, as root (BPF allowed):
#   bash bench/witness-course.sh CLASS PART      (writes under $OUT)
# CLASS is a class made by `go run ./bench/bigclass each -course . -out DIR`
# (DIR, or DIR packed as a .tgz): one student per solution ("correct-"),
# correct alternative ("right-") and wrong answer ("wrong-"), each
# handing in that file alone. PART picks who is graded, so that each call
# ends within about a minute and a half: 1 the solutions and the first third
# of the wrong answers, 2 and 3 the other thirds, 4 the correct
# alternatives, all all. Each part writes under $OUT/partPART.
# Graded by lessons grade (the sandbox, the write-exec rule, the witness)
# with LESSONS_WITNESS_LOG, and compute-sanitizer off (its runs are not
# watched; they only cost time). Prints, for every run watched, whether the
# kernel's counts equal the record's (want: all equal), the runs not
# witnessed and why, and which driver entry points the runtime's own calls
# reached (what says whether the driver's counts can be compared exactly).
set -uo pipefail
class=$1; part=${2:-1}
bin=${LESSONS:-carry/lead/lessons}; bin=$(realpath "$bin")
out=${OUT:-/tmp/witness-course}/part$part; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
work=$(mktemp -d /tmp/witness-course.XXXXXX); chmod 755 "$work"
if [ -f "$class" ]; then tar -xzf "$class" -C "$work"; src=$(dirname "$(find "$work" -maxdepth 3 -name expected.tsv | head -1)"); else src=$class; fi
mkdir -p "$work/subs"
mapfile -t wrong < <(ls "$src/subs" | grep '^wrong-' | sort)
third=$(( (${#wrong[@]} + 2) / 3 ))
case "$part" in
  1) pick=( $(ls "$src/subs" | grep '^correct-') "${wrong[@]:0:$third}" ) ;;
  2) pick=( "${wrong[@]:$third:$third}" ) ;;
  3) pick=( "${wrong[@]:$((2 * third))}" ) ;;
  4) pick=( $(ls "$src/subs" | grep '^right-') ) ;;
  all) pick=( $(ls "$src/subs") ) ;;
  *) echo "PART is 1, 2, 3, 4 or all"; exit 2 ;;
esac
for s in "${pick[@]}"; do cp -r "$src/subs/$s" "$work/subs/"; done
# Part 1 also hands in bench/witness's probes of the entry points no
# course program calls (cudaMallocPitch, cudaMalloc3D, cudaHostAlloc, the
# driver's own allocations), as the first solution's file: its checks
# fail, its record and the kernel's counts must agree all the same.
if [ "$part" = 1 ] || [ "$part" = all ]; then
  first=$(ls "$src/subs" | grep '^correct-' | head -1)
  rel=$(cd "$src/subs/$first" && find . -type f | head -1)
  for f in bench/witness/*.cu; do
    d="$work/subs/probe-$(basename "$f" .cu)"; mkdir -p "$(dirname "$d/$rel")"; cp "$f" "$d/$rel"
  done
fi
chmod -R a+rX "$work/subs"
export LESSONS_CACHE=$work/cache LESSONS_SANITIZER=none LESSONS_WITNESS_LOG=$out/witness.jsonl
rm -f "$out/witness.jsonl"
echo "part $part: ${#pick[@]} students, as $(id -un)"
t0=$EPOCHREALTIME
timeout "${T:-100}" "$bin" grade "$work/subs" --gradebook "$work/gb.db" > "$out/grade.txt" 2>&1
echo "grade rc=$? in $(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $t0 }") s"
awk '/^Outside witness:/ {on=1} on && /^$/ {exit} on' "$out/grade.txt" | tr '\n' ' ' | cut -c1-600; echo
grep -E 'graded in|not witnessed from outside' "$out/grade.txt" | cut -c1-240
"$bin" grade export --gradebook "$work/gb.db" --csv "$out/grades.csv" --json "$out/grades.json" > /dev/null 2>&1
cp "$work/gb.db" "$out/gb.db" 2>/dev/null
python3 - "$out/witness.jsonl" "$out/gb.db" <<'PY'
import collections, json, os, sqlite3, sys
runs = [json.loads(l) for l in open(sys.argv[1])] if os.path.exists(sys.argv[1]) else []
students = {}
if os.path.exists(sys.argv[2]):
    for st, h in sqlite3.connect(sys.argv[2]).execute("SELECT student, source_hash FROM attempts WHERE source_hash != ''"):
        students.setdefault(h, st)
def who(r):
    return students.get(r.get("hash", ""), r.get("job", "?") + " " + r.get("hash", "")[:12])
cmp = [r for r in runs if r["compared"]]
eq = [r for r in cmp if r["equal"]]
print(f"runs watched: {len(runs)}; compared: {len(cmp)}; the kernel's counts equal the record's: {len(eq)}; differ: {len(cmp) - len(eq)}")
stopped = [r for r in cmp if r.get("stopped")]
print(f"  of those compared, stopped or crashed (the record's last snapshot, compared one way: never above the kernel's): {len(stopped)}, of them within: {sum(1 for r in stopped if r['equal'])}")
for r in cmp:
    if not r["equal"]:
        print(f"  DIFFER {who(r)} [{r['run'] or 'public'}]: {r['got'][:400]}")
why = collections.Counter(r.get("not_witnessed", "") for r in runs if not r["compared"])
for w, n in why.most_common():
    print(f"  not compared ({n}): {w or 'record untrusted or no count'}")
twins = {"malloc_calls": ["cuMemAlloc", "cuMemAllocPitch"], "free_calls": ["cuMemFree"], "malloc_async_calls": ["cuMemAllocAsync"],
         "free_async_calls": ["cuMemFreeAsync"], "malloc_from_pool_calls": ["cuMemAllocFromPoolAsync"],
         "malloc_managed_calls": ["cuMemAllocManaged"], "malloc_host_calls": ["cuMemAllocHost", "cuMemHostAlloc"]}
# Runs whose record says no driver call of their own: any driver count
# there is the runtime's own call through the driver's entry point.
own = [r for r in runs if r["driver_allocs"] + r["driver_frees"] == 0 and r["kernel"]]
print(f"runs with no driver allocation of their own (the record's word): {len(own)}")
for twin, probes in twins.items():
    d = lambda r: sum(r["kernel"].get(p, 0) for p in probes)
    reached = [r for r in own if d(r) > 0]
    same = [r for r in own if d(r) == r["kernel"].get(twin, 0)]
    more = [r for r in own if d(r) > r["kernel"].get(twin, 0)]
    rt = sum(r["kernel"].get(twin, 0) for r in own); drv = sum(d(r) for r in own)
    print(f"  {twin}: runtime {rt} calls, driver's {'+'.join(probes)} {drv} calls (in {len(reached)} runs); driver = runtime in {len(same)} of {len(own)} runs, driver > runtime in {len(more)}")
    for r in more[:3]:
        print(f"    driver > runtime: {who(r)} [{r['run'] or 'public'}] runtime {r['kernel'].get(twin, 0)} driver {d(r)}")
drv = [r for r in runs if r["driver_allocs"] + r["driver_frees"] > 0 and r["kernel"]]
exact = [r for r in drv if all(r["record"].get(t, 0) == r["kernel"].get(t, 0) + sum(r["kernel"].get(p, 0) for p in ps) for t, ps in twins.items())]
print(f"runs calling the driver's allocation functions themselves: {len(drv)}; record = runtime + driver exactly in {len(exact)}")
for r in drv:
    if r not in exact:
        print(f"  not exact {who(r)} [{r['run'] or 'public'}]: record {r['record']} kernel {r['kernel']}")
# Bytes asked for, counted from each call's size argument (not compared):
# the record adds a size only when the call succeeds.
clean = [r for r in own if r["record"].get("failed_allocs", 0) == 0]
print(f"bytes asked for against the record's bytes, in the {len(clean)} runs with no failed allocation and no driver call of their own:")
for b in ("malloc", "malloc_async", "malloc_from_pool", "malloc_managed", "malloc_host"):
    k = b + "_bytes_asked"
    have = [r for r in clean if k in r["kernel"]]
    same = [r for r in have if r["kernel"][k] == r["record"].get(b + "_bytes", 0)]
    print(f"  {b}_bytes: equal in {len(same)} of {len(have)} runs")
    for r in [r for r in have if r not in same][:3]:
        print(f"    differ: {who(r)} [{r['run'] or 'public'}] record {r['record'].get(b + '_bytes', 0)} kernel {r['kernel'][k]}")
# The host's waits (round 20): whether the driver's three waits can be
# bounded by the record's statistic (by default since session 25; LESSONS_WITNESS_DRIVER_WAITS=shown only shows them):
# right only if no run's driver count exceeds its record's (settled runs
# apart for the stream's and the event's, as the runtime's).
for rt, drv, st, settled_too in (("cudaDeviceSynchronize", "cuCtxSynchronize", "device_syncs", True),
                                  ("cudaStreamSynchronize", "cuStreamSynchronize", "stream_syncs", False),
                                  ("cudaEventSynchronize", "cuEventSynchronize", "event_syncs", False)):
    have = [r for r in runs if r["kernel"] and drv in r["kernel"] and (settled_too or not r.get("settled"))]
    over = [r for r in have if r["kernel"][drv] > r["record"].get(st, 0)]
    print(f"  {drv}: {sum(r['kernel'][drv] for r in have)} calls in {sum(1 for r in have if r['kernel'][drv])} runs, runtime's {rt} {sum(r['kernel'].get(rt, 0) for r in have)}, record's {st} {sum(r['record'].get(st, 0) for r in have)}; driver > record in {len(over)} of {len(have)} runs (want 0 to bound it)")
    for r in over[:5]:
        print(f"    driver > record: {who(r)} [{r['run'] or 'public'}] runtime {r['kernel'].get(rt, 0)} driver {r['kernel'][drv]} record {r['record'].get(st, 0)}")
# The driver's virtual memory functions, bounded by the record's
# vmm_*_calls (session 27) and, since session 28, the retain and the
# import added up by vmm_retain_attempts (record version 22): how often
# an honest run reaches each, and whether any count passed its record's
# (the log keeps those figures since session 28's review).
for probes, st in ((("cuMemAddressReserve",), "vmm_reserve_calls"), (("cuMemCreate",), "vmm_create_calls"),
                   (("cuMemMap",), "vmm_map_calls"), (("cuMemSetAccess",), "vmm_set_access_calls"),
                   (("cuMemUnmap",), "vmm_unmap_calls"), (("cuMemRelease",), "vmm_release_calls"),
                   (("cuMemAddressFree",), "vmm_address_free_calls"),
                   (("cuMemRetainAllocationHandle", "cuMemImportFromShareableHandle"), "vmm_retain_attempts")):
    have = [r for r in runs if r["kernel"] and any(p in r["kernel"] for p in probes)]
    k = lambda r: sum(r["kernel"].get(p, 0) for p in probes)
    logged = [r for r in have if st in r["record"]]
    over = [r for r in logged if not r.get("stopped") and k(r) > r["record"][st]]
    print(f"  {'+'.join(probes)}: {sum(k(r) for r in have)} calls in {sum(1 for r in have if k(r))} runs; record's {st} {sum(r['record'].get(st, 0) for r in logged)} (in {len(logged)} runs logging it); kernel > record in {len(over)} (want 0)")
    for r in over[:5]:
        print(f"    kernel > record: {who(r)} [{r['run'] or 'public'}] kernel {k(r)} record {r['record'][st]}")
    for r in [r for r in have if any(p in x for x in r.get("past", []) for p in probes)][:5]:
        print(f"    entered past its first instruction: {who(r)} [{r['run'] or 'public'}] {r['past']}")
for k in ("cuLaunchKernel", "cuLaunchKernelEx", "cuMemPoolCreate"):
    print(f"  {k}: {sum(r['kernel'].get(k, 0) for r in runs)} calls in {sum(1 for r in runs if r['kernel'].get(k, 0))} runs")
PY
# Why a probe by name alone counted cudaMallocAsync 0 times: the versions
# of the runtime's allocation entry points (each version at its address).
rt=$(ls /usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.1* 2>/dev/null | head -1)
if [ "$part" = 1 ] && [ -n "$rt" ] && command -v readelf > /dev/null; then
  echo "versions in $(basename "$rt"):"
  readelf -W --dyn-syms "$rt" | awk '$8 ~ /^cuda(Malloc|Free|MallocAsync|FreeAsync|MallocFromPoolAsync)(_ptsz)?@/ {print "  " $2, $8}'
fi
rm -rf "$work"
