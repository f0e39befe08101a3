#!/usr/bin/env bash
# figures.sh measures again every figure the lessons quote, each as the
# median of N runs (5 unless FIGURES_RUNS says otherwise) with its minimum
# and maximum, and prints one line per figure:
#
#   LABEL | what | median M (min A, max B; N runs) | the lesson quotes Q
#
# docs/claims.md names the LABEL behind each figure of a lesson. The
# programs are the lessons' own cells (cut out of lessons/*.md, built as
# lessons run builds them, for the GPU it finds), the course's solutions
# and wrong answers, and docs/measure's probes; the kernel times come from
# the statistics library, read through lessons check with a probe spec
# whose checks ask for impossible values so that each prints what it
# counted.
#
# Usage, from the course's root, on the GPU machine:
#   bash docs/measure/figures.sh [OUT]
#   FIGURES_ONLY=probes bash docs/measure/figures.sh [OUT]   (the probes alone)
#   FIGURES_ONLY=heapfrag bash docs/measure/figures.sh [OUT] (Day 86's heap
#     sized or not, and fragmentation in the driver's pool and graph
#     memory: about a minute, no lessons binary needed)
#   FIGURES_ONLY=recheck2 bash docs/measure/figures.sh [OUT] (what issue
#     41's second recheck left at one run or one machine, and its probes
#     M1 to M8, docs/measure/recheck2.cu among them: about two minutes on
#     one H200, cut at FIGURES_BUDGET seconds, 140 unless set; M1 wants two
#     GPUs and prints M1.skipped on one)
# Needs nvcc (NVCC, or /usr/local/cuda/bin/nvcc, or on PATH), one GPU,
# python3 with CuPy and torch for Day 77, and a lessons binary (LESSONS,
# or carry/lead/lessons, or on PATH) for the statistics. Every raw output
# is kept under OUT/raw. About two minutes on an H200.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-/tmp/figures}}
mkdir -p "$out/raw"
N=${FIGURES_RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${NVCC:-}" ]; then nvcc=$NVCC
elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc
else nvcc=nvcc; fi
# lessons check finds nvcc on PATH.
case $nvcc in */*) PATH="$(dirname "$nvcc"):$PATH"; export PATH ;; esac
if [ -n "${LESSONS:-}" ]; then lessons=$LESSONS
elif [ -x "$root/carry/lead/lessons" ]; then lessons=$root/carry/lead/lessons
else lessons=lessons; fi
report=$out/figures.txt
: > "$report"
say() { echo "$*" | tee -a "$report"; }

# cell LESSON FILE writes the cell of lessons/LESSON that writes FILE
# (```LANG file=FILE ... ``` or %%writefile FILE) to $work/FILE.
cell() {
    awk -v f="$2" '
        !on && ($0 ~ "^```[a-z]* file=" f "( |$)" || $0 == "%%writefile " f) { on = 1; nb = ($0 ~ /^%%/); next }
        on && !nb && /^```/ { exit }
        on && nb && (/^In \[/ || /^!/) { exit }
        on { print }' "$root/lessons/$1" > "$work/$2"
    [ -s "$work/$2" ] || say "MISSING | the cell $2 of lessons/$1 was not found"
}

# stats reads numbers, one a line, and prints their median, minimum and
# maximum.
stats() {
    sort -g | awk '{ a[NR] = $1 } END {
        if (NR == 0) { printf "no value (the raw output says why)"; exit }
        m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
        printf "median %.10g (min %.10g, max %.10g; %d runs)", m, a[1], a[NR], NR }'
}

# lines_of RAWFILE ERE: the lines of RAWFILE that match ERE, each with
# the number of runs that printed it ("5 x line;"; a | in a line becomes
# :, so that the report's columns stay four).
lines_of() {
    grep -E "$2" "$1" 2>/dev/null | sed 's/^ *//; s/|/:/g' | sort | uniq -c | sed 's/^ *\([0-9]*\) /\1 x /' | tr '\n' ';'
}

# fig LABEL WHAT RAWFILE SEDEXPR QUOTE: the figure SEDEXPR takes from each
# line of RAWFILE (sed -n with p), summarised.
fig() {
    say "$1 | $2 | $(sed -n "$4" "$3" | stats) | the lesson quotes $5"
}

# runs NAME CMD...: CMD run N times, every output appended to raw/NAME.
runs() {
    local name=$1; shift
    : > "$out/raw/$name"
    for _ in $(seq "$N"); do timeout 60 "$@" >> "$out/raw/$name" 2>&1; done
}

echo "figures.sh: $N runs each; GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); $($nvcc --version | tail -1)" | tee -a "$report"

# Kernel times seen by the statistics library, through lessons check with
# a probe spec, for the solution and the wrong answers a lesson names.
# probe MODE ID SOLUTION PATCH...: MODE warm builds and runs each once
# (its output dropped), measure runs each N times and reports.
probe() {
    local mode=$1 id=$2 sol=$3; shift 3
    # PTAG names the probe's labels and folder (the exercise's id unless
    # set); PARGS, a TOML list, gives the public run its arguments.
    local tag=${PTAG:-$id}
    local c=$work/probe-$tag
    if [ ! -d "$c" ]; then
        # The solution lies apart from the student's file: a spec beside
        # the solution is read as the secret spec, which may hold checks
        # only, and the probe spec holds points and a timeout too.
        mkdir -p "$c/lessons" "$c/exercises" "$c/solutions"
        printf 'title = "probe"\n[[lesson]]\nfile = "lessons/day001-probe.md"\n[[exercise]]\nid = "%s"\nlesson = "1"\nstudent = "exercises/%s"\nsolution = "solutions/%s"\n' "$id" "$(basename "$sol")" "$(basename "$sol")" > "$c/course.toml"
        printf '# Probe\n' > "$c/lessons/day001-probe.md"
        # The exercise's fixed files (a harness beside a header) too.
        cp "$root/exercises/$(basename "$(dirname "$sol")")"/* "$c/exercises/" 2>/dev/null
        cp "$root/$sol" "$c/exercises/"
        cp "$root/$sol" "$c/solutions/"
        local spec=$c/exercises/$(basename "${sol%.*}").toml
        awk '/^\[\[/{exit} {print}' "$root/exercises/$(basename "$(dirname "$sol")")/$(basename "${sol%.*}").toml" > "$spec"
        [ -n "${PARGS:-}" ] && printf 'args = %s\n' "$PARGS" >> "$spec"
        printf '[[check]]\nstat = "max_concurrent_streams"\nequals = 987654321\n[[check]]\nstat = "kernel_span_ms"\nequals = 987654322\n[[check]]\nstat = "kernel_busy_ms"\nequals = 987654323\n' >> "$spec"
        # PSTATS: more statistics to print, each as a check named "S stat".
        for st in ${PSTATS:-}; do
            printf '[[check]]\nname = "S %s"\nstat = "%s"\nequals = 987654329\n' "$st" "$st" >> "$spec"
        done
        for p in "$@"; do
            patch -s -p1 -o "$c/$(basename "$p" .patch).${sol##*.}" "$root/$sol" < "$root/$p" > /dev/null 2>&1 || say "P.$id.$(basename "$p" .patch) | the patch did not apply"
        done
    fi
    for p in "" "$@"; do
        local name=solution file=$c/exercises/$(basename "$sol")
        if [ -n "$p" ]; then name=$(basename "$p" .patch); file=$c/$name.${sol##*.}; fi
        [ -f "$file" ] || continue
        if [ "$mode" = warm ]; then
            # Untimed, so side by side (the build cache takes concurrent
            # builds).
            (cd "$c" && COLUMNS=1000 NO_COLOR=1 timeout 90 "$lessons" check "$id" --file "$file" > "$out/raw/warm-$tag-$name" 2>&1) &
            continue
        fi
        : > "$out/raw/p-$tag-$name"
        for _ in $(seq "$N"); do
            (cd "$c" && COLUMNS=1000 NO_COLOR=1 timeout 60 "$lessons" check "$id" --file "$file" >> "$out/raw/p-$tag-$name" 2>&1)
        done
        for k in 987654321:streams 987654322:span_ms 987654323:busy_ms; do
            say "P.$tag.$name.${k#*:} | ${k#*:} of the kernels (statistics library) | $(awk -v key="${k%%:*}" 'index($0, key) { want = 1; next } want && /got:/ { sub(/.*got: */, ""); match($0, /[0-9]+(\.[0-9]+)?/); print substr($0, RSTART, RLENGTH); want = 0 }' "$out/raw/p-$tag-$name" | stats) | see docs/claims.md"
        done
        for st in ${PSTATS:-}; do
            say "P.$tag.$name.$st | $st (statistics library) | $(awk -v st="$st" '$0 ~ ("S " st "([^a-z_]|$)") { on = 1; next } on && /got:/ { sub(/.*got: */, ""); if (match($0, /[0-9]+(\.[0-9]+)?/)) print substr($0, RSTART, RLENGTH); on = 0 }' "$out/raw/p-$tag-$name" | stats) | see docs/claims.md"
        done
    done
    wait
}
ap() { probe "$1" async-pipeline solutions/day069/async_pipeline.cu \
    solutions/day069/wrong/async-pipeline/one_stream.patch \
    solutions/day069/wrong/async-pipeline/sync_each_iteration.patch \
    solutions/day069/wrong/async-pipeline/pageable_host.patch; }
sp() { probe "$1" stream-pools solutions/day087/stream_pools.cu \
    solutions/day087/wrong/stream-pools/per_thread_cas.patch; }
# Day 86's heap sized first or left at its default, and fragmentation in
# the driver's pool and in graph memory (docs/measure's heap_sized.cu,
# pool_frag.cu, graph_frag.cu; heap_vs_pool built as it is and with
# heap_default.patch and heap_every.patch). Built for sm_90 here.
heapfrag() {
    local m=$root/docs/measure
    cd "$work" || return
    build hs -arch=sm_90 "$m/heap_sized.cu" &
    build pool_frag -arch=sm_90 "$m/pool_frag.cu" &
    build graph_frag -arch=sm_90 "$m/graph_frag.cu" &
    build hvp_sized -arch=sm_90 "$root/solutions/day086/heap_vs_pool.cu" &
    for v in default every; do
        if patch -s -p1 -o "$work/hvp_$v.cu" "$root/solutions/day086/heap_vs_pool.cu" < "$m/heap_$v.patch" > /dev/null 2>&1; then
            build "hvp_$v" -arch=sm_90 "hvp_$v.cu" &
        else
            say "BUILD | heap_$v.patch did not apply to solutions/day086/heap_vs_pool.cu"
        fi
    done
    wait
    # The fragmentation probes first: they are quick, and a run cut short
    # by a time limit keeps them.
    # The driver's pool.
    runs frag_pool ./pool_frag
    fig F.holes.blocks "holes: 4 MiB blocks that filled the pool" "$out/raw/frag_pool" 's/^holes: filled with \([0-9]*\) blocks.*/\1/p' "(new)"
    fig F.holes.free "holes: free in the pool after every other block was freed (MiB)" "$out/raw/frag_pool" 's/^holes: every other .*free in the pool \([0-9]*\) MiB/\1/p' "(new)"
    fig F.holes.grew "holes: reserved grew by, for 16 MiB (MiB)" "$out/raw/frag_pool" 's/^holes: 16 MiB asked for: reserved grew by \(-\{0,1\}[0-9]*\) MiB/\1/p' "(new)"
    fig F.holes.trim "holes: reserved after trim to 0, holes there (MiB)" "$out/raw/frag_pool" 's/^holes: trimmed to 0 .*: reserved \([0-9]*\) MiB (was.*/\1/p' "(new)"
    fig F.holes.trimwas "holes: reserved before that trim (MiB)" "$out/raw/frag_pool" 's/^holes: trimmed to 0 .*(was \([0-9]*\)).*/\1/p' "(new)"
    fig F.holes.used "holes: used at that trim (MiB)" "$out/raw/frag_pool" 's/^holes: trimmed to 0 .*used \([0-9]*\) MiB$/\1/p' "(new)"
    fig F.capped.blocks "capped: 4 MiB blocks that filled a pool of at most 128 MiB" "$out/raw/frag_pool" 's/^capped: a pool of at most 128 MiB filled with \([0-9]*\) blocks.*/\1/p' "(new)"
    say "F.capped.result | capped: 16 MiB from that pool with every other block freed (every run) | $(sed -n 's/^capped: .*: 16 MiB \(.*\)$/\1/p; s/^capped: not built.*/not built/p' "$out/raw/frag_pool" | sort | uniq -c | tr -s ' ' | tr '\n' ';') | (new)"
    fig F.neighbours.grew "neighbours: reserved grew by, for 16 MiB (MiB)" "$out/raw/frag_pool" 's/^neighbours: 16 MiB .*reserved grew by \(-\{0,1\}[0-9]*\) MiB.*/\1/p' "(new)"
    say "F.neighbours.where | where the 16 MiB went (every run) | $(sed -n 's/^neighbours: 16 MiB .*MiB, //p; s/^neighbours: no four.*/no four side by side/p' "$out/raw/frag_pool" | sort | uniq -c | tr -s ' ' | tr '\n' ';') | (new)"
    fig F.mixed.ratio "mixed: reserved per used, a random half freed" "$out/raw/frag_pool" 's/^mixed: a random half .*(\([0-9.]*\) reserved per used).*/\1/p' "(new)"
    fig F.mixed.used "mixed: used, a random half freed (MiB)" "$out/raw/frag_pool" 's/^mixed: a random half .*, used \([0-9]*\) MiB (.*/\1/p' "(new)"
    fig F.mixed.reserved "mixed: reserved, a random half freed (MiB)" "$out/raw/frag_pool" 's/^mixed: a random half freed: reserved \([0-9]*\) MiB.*/\1/p' "(new)"
    fig F.mixed.trimmed "mixed: reserved after trim to 0 (MiB)" "$out/raw/frag_pool" 's/^mixed: .*after trim to 0: reserved \([0-9]*\) MiB.*/\1/p' "(new)"
    fig F.mixed.trimratio "mixed: reserved per used after the trim" "$out/raw/frag_pool" 's/^mixed: .*after trim to 0: reserved [0-9]* MiB (\([0-9.]*\)).*/\1/p' "(new)"
    fig F.early.reserved "early trim: reserved, free not yet seen complete (MiB)" "$out/raw/frag_pool" 's/^early trim: .*trimmed at once: reserved \([0-9]*\) MiB.*/\1/p' "day069: may still count as in use"
    fig F.early.used "early trim: used at that moment (MiB)" "$out/raw/frag_pool" 's/^early trim: .*trimmed at once: reserved [0-9]* MiB, used \([0-9]*\) MiB.*/\1/p' "(new)"
    fig F.early.after "early trim: reserved after a synchronisation and a trim (MiB)" "$out/raw/frag_pool" 's/^early trim: .*after a synchronisation and a trim: reserved \([0-9]*\) MiB/\1/p' "(new)"
    # Graph memory.
    runs frag_graph ./graph_frag
    fig G.across.reserved "two graphs of 64 MiB launched in turn: reserved high (MiB)" "$out/raw/frag_graph" 's/^across: .*reserved high \([0-9]*\) MiB.*/\1/p' "day074: may reuse across graphs"
    fig G.chain.reserved "one graph, 32 MiB freed then 32 MiB: reserved high (MiB)" "$out/raw/frag_graph" 's/^chain: .*reserved high \([0-9]*\) MiB.*/\1/p' "(new)"
    say "G.chain.address | the second 32 MiB at the first's address (every run) | $(sed -n 's/^chain: the second 32 MiB \(.*\) the first.s address/\1/p' "$out/raw/frag_graph" | sort | uniq -c | tr -s ' ' | tr '\n' ';') | (new)"
    fig G.hole.used "hole: used high (MiB)" "$out/raw/frag_graph" 's/^hole: one graph.*used high \([0-9]*\) MiB.*/\1/p' "(new)"
    fig G.hole.reserved "hole: reserved high (MiB)" "$out/raw/frag_graph" 's/^hole: one graph.*reserved high \([0-9]*\) MiB.*/\1/p' "(new)"
    fig G.hole.again "hole: reserved now after a second launch (MiB)" "$out/raw/frag_graph" 's/^hole: the same graph launched again.*reserved now \([0-9]*\) MiB/\1/p' "(new)"
    fig G.hole.trim "hole: reserved now after the trim, graph alive (MiB)" "$out/raw/frag_graph" 's/^hole: trimmed.*reserved now \([0-9]*\) MiB/\1/p' "(new)"
    # The first cell's kernel: 65536 threads of 256 bytes (16 MiB asked
    # for), on the default heap and on heaps set first; then one block of
    # 256 threads, where the calls hardly contend.
    for h in 0 16 32 64 256; do
        runs "d86s_$h" ./hs "$h"
        fig "D86.sized.$h.ms" "65536 malloc+free of 256 bytes, heap $h MiB (0: the default, not set) (kernel ms)" "$out/raw/d86s_$h" 's/^heap .*malloc+free kernel \([0-9.]*\) ms.*/\1/p' "60.98 ms on the default heap"
        fig "D86.sized.$h.failed" "of them failed (NULL)" "$out/raw/d86s_$h" 's/^heap .* ms, \([0-9]*\) failed$/\1/p' "8280 on the default heap"
    done
    for h in 0 64; do
        runs "d86s1_$h" ./hs "$h" 256
        fig "D86.sized.$h.oneblock.ms" "one block: 256 malloc+free of 256 bytes, heap $h MiB (kernel ms)" "$out/raw/d86s1_$h" 's/^heap .*malloc+free kernel \([0-9.]*\) ms.*/\1/p' "(new)"
    done
    # heap-vs-pool: the solution (heap sized for the lists that can spill),
    # the heap left at its default, the heap sized for every list.
    for v in sized default every; do
        [ -x "./hvp_$v" ] || continue
        for pct in 80 1 100; do
            runs "d86h_${v}_$pct" "./hvp_$v" 100000 4 "$pct"
            fig "D86.hvp.$v.$pct" "heap-vs-pool, slices of $pct%, heap $v (ms a round)" "$out/raw/d86h_${v}_$pct" 's/^4 rounds of 100000 lists: \([0-9.]*\) ms a round/\1/p' "9.36 / 45.44 / 0.35 ms (80 / 1 / 100, sized)"
            say "D86.hvp.$v.$pct.lines | limit, lists without memory, rounds right (every run) | $(grep -h '^heap limit\|^lists without\|rounds summed' "$out/raw/d86h_${v}_$pct" | sed 's/; off a.*//' | sort | uniq -c | tr -s ' ' | tr '\n' ';') | (new)"
        done
        [ "$v" = every ] && continue
        runs "d86h_${v}_heap" "./hvp_$v" --heap
        fig "D86.hvp.$v.heap" "heap-vs-pool, every list from the heap, heap $v (ms a round)" "$out/raw/d86h_${v}_heap" 's/^[0-9]* rounds of [0-9]* lists: \([0-9.]*\) ms a round/\1/p' "46.21 ms (sized)"
        say "D86.hvp.$v.heap.lines | limit, lists without memory, rounds right (every run) | $(grep -h '^heap limit\|^lists without\|rounds summed' "$out/raw/d86h_${v}_heap" | sed 's/; off a.*//' | sort | uniq -c | tr -s ' ' | tr '\n' ';') | (new)"
    done
    cd "$root" || return
}
# FIGURES_ONLY=recheck2: what issue 41's second recheck
# (review/expert/RECHECK2.md) left at one run or one machine, and its
# probes M1 to M8, five runs each, on one GPU in about two minutes (M1
# needs two: on one it prints M1.skipped). Labels R2.* and M*.*; the rows
# of docs/claims.md marked "to be measured: LABEL" name them. Past
# FIGURES_BUDGET seconds (140) a section prints SKIPPED instead of running.
# over WHAT NEED: true (and WHAT said SKIPPED) when NEED more seconds
# would pass the budget.
over() {
    if [ $((SECONDS + ${2:-0})) -gt "${FIGURES_BUDGET:-140}" ]; then
        say "SKIPPED | $1: would pass the time budget (${SECONDS} s gone, about ${2:-0} s more, budget ${FIGURES_BUDGET:-140} s)"
        return 0
    fi
    return 1
}
# runs_rc NAME CMD...: as runs, with each run's exit status as a line.
runs_rc() {
    local name=$1; shift
    : > "$out/raw/$name"
    for _ in $(seq "$N"); do
        timeout 60 "$@" >> "$out/raw/$name" 2>&1
        echo "exit status $?" >> "$out/raw/$name"
    done
}
# every LABEL WHAT RAWFILE ERE QUOTE: the matching lines, with how many
# runs printed each.
every() {
    say "$1 | $2 (every run) | $(lines_of "$3" "$4") | the lesson quotes $5"
}
recheck2() {
    local m=$root/docs/measure
    cd "$work" || return
    cell day068-memory-pools.md bump_pool.cu
    cell day072-vmm-growable.md granularity.cu
    cell day077-python-pools.md day077_torch.py
    # M5: Day 77's PyTorch figures, the lesson's cell and the statistics
    # library's table: counts and sizes, not times, so the three
    # configurations run side by side, and beside the builds and the
    # untimed warm-up below (nothing timed runs until they are done).
    local i=0
    {
        for conf in "" "backend:cudaMallocAsync" "expandable_segments:True"; do
            i=$((i + 1))
            (
                : > "$out/raw/r2_torch_$i"
                for _ in $(seq "$N"); do
                    if [ -z "$conf" ]; then env -u PYTORCH_CUDA_ALLOC_CONF timeout 60 python3 day077_torch.py
                    else PYTORCH_CUDA_ALLOC_CONF=$conf timeout 60 python3 day077_torch.py; fi >> "$out/raw/r2_torch_$i" 2>&1
                done
            ) &
            r2lib "$i" "$conf" &
        done
        wait
    } &
    mkdir -p d72nw d76 d88
    patch -s -p1 -o d72nw/growable.cu "$root/solutions/day072/growable.cu" < "$root/solutions/day072/wrong/vmm-growable/blind_no_sync_before_unmap.patch" > /dev/null 2>&1 || say "BUILD | blind_no_sync_before_unmap.patch did not apply"
    cp "$root/exercises/day076/pool_resource.cu" "$root/exercises/day076/memory_resource.h" "$root/solutions/day076/pool_resource.h" d76/
    cp "$root/exercises/day088/bench.cu" "$root/solutions/day088/stream_ordered_pool.h" d88/
    build r2 -arch=sm_90 "$m/recheck2.cu" &
    build bump_pool -arch=sm_90 bump_pool.cu &
    build granularity -arch=sm_90 granularity.cu -lcuda &
    build vmm_facts -arch=sm_90 "$m/vmm_facts.cu" -lcuda &
    build growable -arch=sm_90 "$root/solutions/day072/growable.cu" -lcuda &
    build growable_nowait -arch=sm_90 d72nw/growable.cu -lcuda &
    build graph_alloc -arch=sm_90 "$root/solutions/day074/graph_alloc.cu" &
    build pool_resource -arch=sm_90 -Id76 d76/pool_resource.cu &
    for p in no_wait no_coalesce; do
        mkdir -p "d76_$p"
        cp d76/pool_resource.cu d76/memory_resource.h "d76_$p/"
        if patch -s -p1 -o "d76_$p/pool_resource.h" "$root/solutions/day076/pool_resource.h" < "$root/solutions/day076/wrong/pool-resource/$p.patch" > /dev/null 2>&1; then
            build "pr_$p" -arch=sm_90 -I"d76_$p" "d76_$p/pool_resource.cu" &
        else
            say "BUILD | $p.patch did not apply to solutions/day076/pool_resource.h"
        fi
    done
    build stream_pools -arch=sm_90 "$root/solutions/day087/stream_pools.cu" &
    build bench88 -arch=sm_90 -Id88 d88/bench.cu &
    for p in per_thread_cas leader_lane_zero init_no_clear memset_reset; do
        if patch -s -p1 -o "sp_$p.cu" "$root/solutions/day087/stream_pools.cu" < "$root/solutions/day087/wrong/stream-pools/$p.patch" > /dev/null 2>&1; then
            build "sp_$p" -arch=sm_90 "sp_$p.cu" &
        else
            say "BUILD | $p.patch did not apply to solutions/day087/stream_pools.cu"
        fi
    done
    # The lessons check probes' programs are built (and run once,
    # untimed) meanwhile, into the build cache.
    { r2probes warm; } &
    wait

    # M3, M2, M4, M1: docs/measure/recheck2.cu.
    # Each kind in a process of its own: a free that does not wait
    # unmaps the memory under the kernel, whose write then faults and
    # spoils the context (every run of the first probe, 2026-11-29).
    runs_rc r2_freewait_async ./r2 freewait_async
    runs_rc r2_freewait_malloc ./r2 freewait_malloc
    fig M3.async.cudaFree_ms "cudaFree of cudaMallocAsync memory behind a 100 ms kernel (host ms)" "$out/raw/r2_freewait_async" 's/^M3.async.cudaFree_ms \([0-9.]*\)/\1/p' "day069: waits for nothing (the Guide)"
    every M3.async.kernel_after_free "the kernel still using that memory, its stream synchronised after the free: ok, or the error" "$out/raw/r2_freewait_async" '^M3.async.cudaFree |^M3.async.kernel_after_free|^exit status|recheck2.cu:' "day069: waits for nothing (the Guide)"
    fig M3.malloc.cudaFree_ms "cudaFree of cudaMalloc memory behind the same kernel (host ms)" "$out/raw/r2_freewait_malloc" 's/^M3.malloc.cudaFree_ms \([0-9.]*\)/\1/p' "day068: waits for the device"
    every M3.malloc.kernel_after_free "the same for cudaMalloc memory: ok, or the error" "$out/raw/r2_freewait_malloc" '^M3.malloc.cudaFree |^M3.malloc.kernel_after_free|^exit status|recheck2.cu:' "day068: waits for the device"
    runs r2_upload ./r2 upload
    for k in steady_same_stream first_after_trim first_after_upload_same_stream first_after_upload_other_stream alternating_streams; do
        fig "M2.${k}_ms" "graph of 64 MiB: launch and sync, $k (host ms)" "$out/raw/r2_upload" "s/^M2.${k}_ms \\([0-9.]*\\)/\\1/p" "day074: remapped on a change of stream; upload helps the upload's stream"
    done
    fig M2.reserved_high_MiB "graph memory reserved high after those launches (MiB)" "$out/raw/r2_upload" 's/^M2.reserved_high_MiB \([0-9]*\)/\1/p' "(new)"
    runs r2_fullpool ./r2 fullpool
    fig M4.free_after_fill_MiB "device memory left after the cudaMalloc fill (MiB)" "$out/raw/r2_fullpool" 's/^M4.free_after_fill_MiB \([0-9]*\)/\1/p' "(the probe's setting)"
    every M4.result "B's 32 MiB with the device (not maxSize) full: same block, new, or failed" "$out/raw/r2_fullpool" '^M4.result' "day071: internal dependencies when the pool cannot grow"
    fig M4.b_done_ms "B done after (ms; A's kernel holds its block 50 ms)" "$out/raw/r2_fullpool" 's/^M4.b_done_ms \([0-9.]*\)/\1/p' "day071: 50 ms if B waited for A"
    runs r2_peer ./r2 peercopy
    every M1.lines "peer copy of pool memory without and with access; cudaMemcpyAsync with the other device current" "$out/raw/r2_peer" '^M1\.' "day075: access governs kernels, not cudaMemcpyPeerAsync"
    fig M1.peer_noaccess_GBps "cudaMemcpyPeerAsync of 256 MiB, no access (GB/s, best of 5 a run)" "$out/raw/r2_peer" 's/^M1.peer_noaccess_GBps \([0-9.]*\).*/\1/p' "(new)"
    fig M1.peer_access_GBps "the same with access set (GB/s)" "$out/raw/r2_peer" 's/^M1.peer_access_GBps \([0-9.]*\).*/\1/p' "(new)"

    # M6: Day 72's two H100 observations, and its outputs (counts).
    runs r2_vmm ./vmm_facts
    every R2.D72.release "the mapping after cuMemRelease; cuMemAddressFree of a mapped range" "$out/raw/r2_vmm" '^the mapping still works|^cuMemRelease while|^cuMemAddressFree' "day072:112-113, 'the mapping still worked after the release' (H100, one run)"
    runs_rc r2_nowait ./growable_nowait
    every R2.D72.nowait "a move with no wait before the unmap (blind_no_sync_before_unmap.patch)" "$out/raw/r2_nowait" '^old data kept|^moved|failed|^exit status|rror|CUDA device' "day072:141-143, 'lost the data' (H100, one run)"
    runs_rc r2_growable ./growable
    every R2.D72.solution "vmm-growable's solution, its output" "$out/raw/r2_growable" '.' "day072:187-201 (H100, one run)"
    runs r2_gran ./granularity
    every R2.D72.granularity "granularity.cu, its output" "$out/raw/r2_gran" '.' "day072:73-82 (H100, one run)"

    # Outputs that are counts (Days 68, 74 M7, 76, 87, 88), quick.
    if ! over "the outputs of Days 68, 74, 76, 87, 88" 30; then
        runs_rc r2_bump ./bump_pool
        every R2.D68.bump "bump_pool.cu, its output" "$out/raw/r2_bump" '.' "day068:122-128 (H100, one run)"
        runs_rc r2_graph ./graph_alloc
        every R2.D74.exercise "graph-alloc's solution, its output (10 launches of 16 MiB)" "$out/raw/r2_graph" '^step graph|^produce graph|^graph memory|^after the trim|^exit status' "day074:264-275 (H200, one graded run)"
        runs_rc r2_pr ./pool_resource
        every R2.D76.solution "pool-resource's solution, its output" "$out/raw/r2_pr" '.' "appendix:240-250 (H100, one run)"
        for p in no_wait no_coalesce; do
            [ -x "./pr_$p" ] || continue
            runs_rc "r2_pr_$p" "./pr_$p"
            every "R2.D76.$p" "pool-resource with $p.patch, its output" "$out/raw/r2_pr_$p" '.' "appendix:246-257 (H100, one run)"
        done
        runs_rc r2_sp ./stream_pools
        every R2.D87.solution "stream-pools' solution, its output" "$out/raw/r2_sp" '.' "day087:257-262 (no machine named)"
        for p in per_thread_cas leader_lane_zero init_no_clear memset_reset; do
            [ -x "./sp_$p" ] || continue
            runs_rc "r2_sp_$p" "./sp_$p"
            every "R2.D87.$p" "stream-pools with $p.patch, its output" "$out/raw/r2_sp_$p" '.' "appendix:349-366 (H100, one run)"
        done
        runs_rc r2_bench88 ./bench88
        every R2.D88.solution "the capstone's bench with the solution's pool, its output" "$out/raw/r2_bench88" '.' "day088:51-54 (counts left as N)"
    fi

    # M8: the appendix's one-run figures, through lessons check, last:
    # each probe is skipped whole if it would pass the budget.
    r2probes measure


    # M5's figures (the runs were made at the start).
    i=0
    for conf in native async expandable; do
            i=$((i + 1))
            fig "R2.D77.torch.$conf.handed" "day077_torch.py, $conf: peak handed out (MiB)" "$out/raw/r2_torch_$i" 's/^peak handed out \([0-9]*\) MiB.*/\1/p' "160 / 158 / 158"
            fig "R2.D77.torch.$conf.reserved" "the same: peak reserved (MiB)" "$out/raw/r2_torch_$i" 's/^peak handed out .*peak reserved \([0-9]*\) MiB.*/\1/p' "1296 / 224 / 160"
            fig "R2.D77.torch.$conf.segments" "the same: segments made" "$out/raw/r2_torch_$i" 's/^peak handed out .*segments made \([0-9]*\).*/\1/p' "18 / 0 / 0"
            every "R2.D77.torch.$conf.empty" "the same: its configuration, and after empty_cache" "$out/raw/r2_torch_$i" '^after empty_cache|^PYTORCH_CUDA_ALLOC_CONF' "reserved 0 MiB"
            for st in malloc_calls free_calls peak_live_bytes malloc_async_calls free_async_calls release_threshold_sets reuse_attr_sets pool_trims vmm_reserve_calls vmm_reserve_bytes vmm_create_calls vmm_map_calls vmm_map_bytes vmm_unmap_calls vmm_release_calls; do
                fig "R2.D77.lib.$conf.$st" "python_probe.py (PROBE=torch), $conf, under lessons check: $st" "$out/raw/r2_lib_$i.values" "s/^$st \\([0-9.]*\\)\$/\\1/p" "day077:137-141"
            done
        done
    cd "$root" || return
}
# r2probes MODE: the appendix's one-run figures (M8) through lessons check
# (the statistics library's streams, span and busy time, and the lines the
# program printed).
r2probes() {
    # warm builds the five probes side by side; measure times them one
    # after another.
    local bg=
    [ "$1" = warm ] && bg=1
    # r2p NEED probe ...: NEED, the seconds its timed runs take at most
    # (under a second a lessons check on an H200: FIGURES_ONLY=probes ran 36 in 30 s).
    r2p() {
        local need=$1; shift
        if [ -n "$bg" ]; then "$@" & return; fi
        over "M8 probe $PTAG" $((need * N / 5)) || "$@"
    }
    PTAG=r2-async-pipeline r2p 10 probe "$1" async-pipeline solutions/day069/async_pipeline.cu \
        solutions/day069/right/async-pipeline/free_at_end.patch
    PTAG=r2-cross-stream r2p 20 probe "$1" cross-stream solutions/day070/cross_stream.cu \
        solutions/day070/right/cross-stream/free_on_producers.patch \
        solutions/day070/wrong/cross-stream/one_stream.patch \
        solutions/day070/wrong/cross-stream/event_synchronize.patch
    PTAG=r2-pool-resource PSTATS='kernel_overlap_ms stream_wait_events unordered_uses' r2p 20 probe "$1" pool-resource solutions/day076/pool_resource.h \
        solutions/day076/wrong/pool-resource/no_wait.patch \
        solutions/day076/wrong/pool-resource/no_coalesce.patch \
        solutions/day076/wrong/pool-resource/any_stream_first.patch
    PTAG=r2-stream-pools r2p 10 probe "$1" stream-pools solutions/day087/stream_pools.cu \
        solutions/day087/wrong/stream-pools/device_sync_reset.patch
    PTAG=r2-hvp-pool PARGS='["100000", "4", "100"]' r2p 6 probe "$1" heap-vs-pool solutions/day086/heap_vs_pool.cu
    PTAG=r2-hvp-heap PARGS='["--heap"]' r2p 6 probe "$1" heap-vs-pool solutions/day086/heap_vs_pool.cu
    wait
}
# r2lib I CONF: docs/measure/python_probe.py (PROBE=torch) under lessons
# check, N runs, with PYTORCH_CUDA_ALLOC_CONF=CONF; every statistic's
# value, one "name value" line each run, into raw/r2_lib_I.values.
r2lib() {
    local c=$work/pyprobe-$1
    mkdir -p "$c/lessons" "$c/exercises" "$c/solutions"
    printf 'title = "probe"\n[[lesson]]\nfile = "lessons/day001-probe.md"\n[[exercise]]\nid = "probe"\nlesson = "1"\nstudent = "exercises/python_probe.py"\nsolution = "solutions/python_probe.py"\n' > "$c/course.toml"
    printf '# Probe\n' > "$c/lessons/day001-probe.md"
    cp "$root/docs/measure/python_probe.py" "$root/docs/measure/python_probe.toml" "$c/exercises/"
    cp "$root/docs/measure/python_probe.py" "$c/solutions/"
    : > "$out/raw/r2_lib_$1"
    for _ in $(seq "$N"); do
        if [ -z "$2" ]; then
            (cd "$c" && env -u PYTORCH_CUDA_ALLOC_CONF PROBE=torch COLUMNS=1000 NO_COLOR=1 timeout 120 "$lessons" check probe >> "$out/raw/r2_lib_$1" 2>&1)
        else
            (cd "$c" && PYTORCH_CUDA_ALLOC_CONF=$2 PROBE=torch COLUMNS=1000 NO_COLOR=1 timeout 120 "$lessons" check probe >> "$out/raw/r2_lib_$1" 2>&1)
        fi
    done
    awk 'match($0, /S [a-z_]+/) { name = substr($0, RSTART + 2, RLENGTH - 2); next }
        name != "" && /got:/ { sub(/.*got: */, ""); if (match($0, /[0-9]+(\.[0-9]+)?/)) print name, substr($0, RSTART, RLENGTH); name = "" }' \
        "$out/raw/r2_lib_$1" > "$out/raw/r2_lib_$1.values"
}
if [ "${FIGURES_ONLY:-}" = recheck2 ]; then
    build() { # NAME NVCC-ARGS...: builds NAME from the arguments
        local name=$1; shift
        "$nvcc" -o "$name" "$@" > "$out/raw/build-$name.log" 2>&1 || say "BUILD | $name did not build: raw/build-$name.log"
    }
    recheck2
    echo "figures.sh: recheck2 done in ${SECONDS} s; every raw output is in $out/raw" | tee -a "$report"
    exit 0
fi

if [ "${FIGURES_ONLY:-}" = heapfrag ]; then
    build() { # NAME NVCC-ARGS...: builds NAME from the arguments
        local name=$1; shift
        "$nvcc" -o "$name" "$@" > "$out/raw/build-$name.log" 2>&1 || say "BUILD | $name did not build: raw/build-$name.log"
    }
    heapfrag
    echo "figures.sh: heapfrag done in ${SECONDS} s; every raw output is in $out/raw" | tee -a "$report"
    exit 0
fi

# FIGURES_ONLY=probes measures the probes alone (the kernel times read
# through lessons check), in about a minute.
if [ "${FIGURES_ONLY:-}" = probes ]; then
    ap warm; sp warm; ap measure; sp measure
    echo "figures.sh: the probes done in ${SECONDS} s; every raw output is in $out/raw" | tee -a "$report"
    exit 0
fi

# Build everything first, in parallel, so that no build runs beside a
# timed program.
cell day069-stream-ordered.md sync_vs_async.cu
cell day069-stream-ordered.md pool_attributes.cu
cell day071-reuse-policies.md reuse_matrix.cu
cell day072-vmm-growable.md granularity.cu
cell day073-ipc-pools.md ipc_demo.cu
cell day074-graph-memory.md graph_mem.cu
cell day076-memory-resources.md day076_resources.cu
cell day077-python-pools.md day077_cupy.py
cell day077-python-pools.md day077_torch.py
cell day086-device-malloc.md device_malloc.cu
cell day087-device-allocator.md day087_bump.cu
build() { # NAME NVCC-ARGS...: builds NAME from the arguments
    local name=$1; shift
    "$nvcc" -o "$name" "$@" > "$out/raw/build-$name.log" 2>&1 || say "BUILD | $name did not build: raw/build-$name.log"
}
cd "$work"
build sync_vs_async -arch=native sync_vs_async.cu &
build nowarm "$root/docs/measure/nowarm.cu" &
build pool_attributes -arch=native pool_attributes.cu &
build pool_used -arch=native "$root/docs/measure/pool_used.cu" &
build reuse_matrix -arch=native reuse_matrix.cu &
build granularity -arch=native granularity.cu -lcuda &
build vmm_facts -arch=native "$root/docs/measure/vmm_facts.cu" -lcuda &
build ipc_demo -arch=native ipc_demo.cu &
build graph_mem -arch=native graph_mem.cu &
build day076_resources -arch=native day076_resources.cu &
build device_malloc -arch=native device_malloc.cu &
build day087_bump -arch=native day087_bump.cu &
build heap_vs_pool -arch=native "$root/solutions/day086/heap_vs_pool.cu" &
# The probes' programs are built (and run once, untimed) meanwhile, so
# that their timed runs below find them in the build cache.
{ ap warm; sp warm; } &
wait

# Day 69: the lesson's table (three runs on the H100).
runs d69_sync ./sync_vs_async
fig D69.sync "cudaMalloc/cudaFree, 1000 iterations (ms)" "$out/raw/d69_sync" 's/^cudaMalloc\/cudaFree: *\([0-9.]*\) ms.*/\1/p' "96.21 ms (69.25 to 98.17; H200, 2026-11-28)"
fig D69.async "cudaMallocAsync/cudaFreeAsync, 1000 iterations (ms)" "$out/raw/d69_sync" 's/^cudaMallocAsync\/cudaFreeAsync: *\([0-9.]*\) ms.*/\1/p' "6.34 ms (4.60 to 6.66)"
fig D69.speedup "speedup (x)" "$out/raw/d69_sync" 's/^speedup: \([0-9.]*\)x/\1/p' "15.1x (14.7 to 15.4)"

# Day 69: no warm-up, built without -arch: the first run holds the JIT.
: > "$out/raw/d69_cold"; : > "$out/raw/d69_warm"
for i in $(seq "$N"); do CUDA_CACHE_PATH="$work/jit-cold-$i" ./nowarm >> "$out/raw/d69_cold" 2>&1; done
CUDA_CACHE_PATH="$work/jit-warm" ./nowarm > /dev/null 2>&1
for _ in $(seq "$N"); do CUDA_CACHE_PATH="$work/jit-warm" ./nowarm >> "$out/raw/d69_warm" 2>&1; done
fig D69.nowarm.cold "no warm-up, no -arch, empty JIT cache: speedup (x)" "$out/raw/d69_cold" 's/^speedup: \([0-9.]*\)x/\1/p' "3.3x (3.2 to 9.7) with the cache empty"
fig D69.nowarm.cold.sync "the same: the cudaMalloc loop, 100 iterations of 4 MiB (ms)" "$out/raw/d69_cold" 's/^cudaMalloc\/cudaFree: *\([0-9.]*\) ms.*/\1/p' "35.43 ms (31.97 to 98.57; appendix)"
fig D69.nowarm.warm "no warm-up, no -arch, warm JIT cache: speedup (x)" "$out/raw/d69_warm" 's/^speedup: \([0-9.]*\)x/\1/p' "0.9x (0.8 to 1.1) with the cache warm"

# Day 69: the pool's attributes (sizes: the same every run).
runs d69_attr ./pool_attributes
fig D69.attr.reserved "reserved after a 100 MiB cudaMallocAsync (MiB)" "$out/raw/d69_attr" 's/^after malloc .*reserved *\([0-9]*\) MiB.*/\1/p' "128 MiB"
fig D69.attr.free "reserved after the free, under a 256 MiB threshold (MiB)" "$out/raw/d69_attr" 's/^after free .*reserved *\([0-9]*\) MiB.*/\1/p' "128 MiB"
fig D69.attr.trim "reserved after cudaMemPoolTrimTo(pool, 0) (MiB)" "$out/raw/d69_attr" 's/^after trim .*reserved *\([0-9]*\) MiB.*/\1/p' "0 MiB"

# Day 69: what the used-memory figures count (docs/measure/pool_used.cu).
runs d69_used ./pool_used
fig D69.used.afterfree "UsedMemCurrent right after the first cudaFreeAsync (bytes)" "$out/raw/d69_used" 's/^UsedMemCurrent right after.*: \([0-9]*\) bytes/\1/p' "0"
fig D69.used.high "UsedMemHigh after 12 iterations on 4 streams (MiB)" "$out/raw/d69_used" 's/^after 12 iterations.*UsedMemHigh \([0-9]*\) MiB.*/\1/p' "4 MiB"
fig D69.used.reservedhigh "ReservedMemHigh, the same run (MiB)" "$out/raw/d69_used" 's/^after 12 iterations.*ReservedMemHigh \([0-9]*\) MiB.*/\1/p' "32 MiB"
fig D69.used.sameaddress "a 1 MiB request after a 4 MiB free got the same address (1 = yes)" "$out/raw/d69_used" 's/^a 1 MiB request.*: yes$/1/p; s/^a 1 MiB request.*: no$/0/p' "yes"

# Day 71: the reuse matrix (each row of each setting).
runs d71 ./reuse_matrix
# The row before each "(warm-up above)" is the warm-up's: left out.
awk 'NR > 1 && $0 == "(warm-up above)" { prev = ""; next } NR > 1 && prev != "" { print prev } { prev = $0 } END { if (prev != "") print prev }' "$out/raw/d71" > "$out/raw/d71.rows"
for row in "no ordering  " "event after the free" "host waited for A" "no ordering, pool full"; do
    key=$(echo "$row" | sed 's/ *$//')
    fig "D71.$(echo "$key" | tr ' ,' '_-')" "B done after, '$key', every setting (ms)" "$out/raw/d71.rows" "s/^  $key *\\(same\\|new\\) *B done after *\\([0-9.]*\\) ms/\\2/p" "0.1 / 50.0 / 0.2 / 50.0 ms"
    say "D71.$(echo "$key" | tr ' ,' '_-').block | same or new block | $(sed -n "s/^  $key *\\(same\\|new\\) .*/\\1/p" "$out/raw/d71.rows" | sort | uniq -c | tr '\n' ' ') | the lesson quotes new / same / same / same"
done
say "D71.full-off | 'no ordering, pool full' with internal dependencies off | $(grep -c "pool full B's allocation failed" "$out/raw/d71") failures in $N runs (2 settings each) | the lesson quotes out of memory"

# Day 72: granularity and the VMM calls' cost.
runs d72_gran ./granularity
fig D72.granularity "minimum granularity (bytes)" "$out/raw/d72_gran" 's/^granularity: minimum \([0-9]*\) bytes.*/\1/p' "2097152"
runs d72_vmm ./vmm_facts
fig D72.vmm.map "2 MiB: cuMemCreate + cuMemMap + cuMemSetAccess (us, mean of 100)" "$out/raw/d72_vmm" 's/^2 MiB: create+map+set access \([0-9.]*\) us.*/\1/p' "38.5 us (28.2 to 46.5)"
fig D72.vmm.unmap "2 MiB: cuMemUnmap + cuMemRelease (us, mean of 100)" "$out/raw/d72_vmm" 's/^2 MiB: .*unmap+release \([0-9.]*\) us.*/\1/p' "30.8 us (23.5 to 30.9)"

# Day 73: importing a pool and a block in another process.
runs d73 ./ipc_demo
fig D73.pool "descriptor asked to pool imported (ms)" "$out/raw/d73" 's/^child: pool imported (\([0-9.]*\) ms.*/\1/p' "2.39 ms (0.17 to 9.52)"
fig D73.block "one block imported (ms)" "$out/raw/d73" 's/^child: block imported .* in \([0-9.]*\) ms.*/\1/p' "0.145 ms (0.115 to 0.153)"

# Day 74: a graph that allocates, fills 64 MiB and frees.
runs d74 ./graph_mem
fig D74.launch "one launch of the graph after the first (ms)" "$out/raw/d74" 's/^1000 more launches: \([0-9.]*\) ms each.*/\1/p' "0.042 ms"
fig D74.reserved "reserved after 1001 launches (MiB)" "$out/raw/d74" 's/^after 1001 launches .*reserved *\([0-9]*\) MiB.*/\1/p' "64 MiB"

# Day 76: the same loop through two resources.
runs d76 ./day076_resources
fig D76.cuda "cuda_resource, 1000 rounds (ms)" "$out/raw/d76" 's/^cuda_resource: *1000 rounds in \([0-9.]*\) ms.*/\1/p' "95.7 ms (85.3 to 102.9)"
fig D76.async "async_resource, 1000 rounds (ms)" "$out/raw/d76" 's/^async_resource: 1000 rounds in \([0-9.]*\) ms.*/\1/p' "5.6 ms (5.4 to 5.9)"
fig D76.ratio "cuda_resource / async_resource (x)" "$out/raw/d76" 's/^async_resource: .*(\([0-9.]*\)x faster).*/\1/p' "17.1x (15.7 to 17.5)"

# Day 86: device malloc against a bump pool, and heap-vs-pool's rounds.
runs d86 ./device_malloc
fig D86.malloc "65536 device malloc+free of 256 bytes on an 8 MiB heap (ms)" "$out/raw/d86" 's/^65536 allocations.*device malloc+free \([0-9.]*\) ms.*/\1/p' "60.98 ms (59.15 to 66.37)"
fig D86.failed "of them failed (NULL)" "$out/raw/d86" 's/^65536 allocations.*ms (\([0-9]*\) failed), bump.*/\1/p' "8280 (7307 to 11848)"
fig D86.bump "the bump pool's kernel (ms)" "$out/raw/d86" 's/.*bump \([0-9.]*\) ms.*/\1/p' "0.035 ms (0.030 to 0.038)"
fig D86.null "4 KiB from the 8 MiB heap: NULLs of 65536" "$out/raw/d86" 's/^65536 threads asking.*: \([0-9]*\) got NULL/\1/p' "about 57500 (57135 to 57616)"
runs d86_80 ./heap_vs_pool
runs d86_1 ./heap_vs_pool 100000 4 1
runs d86_100 ./heap_vs_pool 100000 4 100
runs d86_heap ./heap_vs_pool --heap
fig D86.hvp.80 "heap-vs-pool, slices of 80% (ms a round)" "$out/raw/d86_80" 's/^4 rounds of 100000 lists: \([0-9.]*\) ms a round/\1/p' "9.36 ms (9.06 to 9.39)"
fig D86.hvp.1 "heap-vs-pool, slices of 1% (ms a round)" "$out/raw/d86_1" 's/^4 rounds of 100000 lists: \([0-9.]*\) ms a round/\1/p' "45.44 ms (45.29 to 45.63)"
fig D86.hvp.100 "heap-vs-pool, slices that hold every list (ms a round)" "$out/raw/d86_100" 's/^4 rounds of 100000 lists: \([0-9.]*\) ms a round/\1/p' "0.35 ms (0.29 to 0.37)"
fig D86.hvp.heap "heap-vs-pool, every list from the heap (ms a round)" "$out/raw/d86_heap" 's/^[0-9]* rounds of [0-9]* lists: \([0-9.]*\) ms a round/\1/p' "46.21 ms (45.83 to 46.83)"
fig D86.hvp.limit "the heap limit asked for the lists that spill (KiB)" "$out/raw/d86_80" 's/^heap limit [a-z ]*: \([0-9]*\) KiB.*/\1/p' "9216 KiB for at most 2573 KiB"

# Day 87: the bump pool's counts.
runs d87 ./day087_bump
say "D87.bump | the bump cell's lines, as printed (sizes, the same every run) | $(sort "$out/raw/d87" | uniq -c | tr -s ' ' | tr '\n' ';') | the lesson quotes 262144 bytes; offset 1310720, 4096 failures"

# Day 77: CuPy's two pools (times) and PyTorch's three configurations
# (counts and sizes, one run each).
runs d77_cupy python3 day077_cupy.py
fig D77.cupy.pool "CuPy MemoryPool, 200 rounds of 16 MiB (ms)" "$out/raw/d77_cupy" 's/^MemoryPool (cudaMalloc, CuPy.s cache): 200 rounds in \([0-9.]*\) ms.*/\1/p' "9.0 ms"
fig D77.cupy.async "CuPy MemoryAsyncPool, the same (ms)" "$out/raw/d77_cupy" 's/^MemoryAsyncPool (cudaMallocAsync): 200 rounds in \([0-9.]*\) ms.*/\1/p' "9.1 ms"
: > "$out/raw/d77_torch"
for conf in "" "backend:cudaMallocAsync" "expandable_segments:True"; do
    if [ -z "$conf" ]; then
        env -u PYTORCH_CUDA_ALLOC_CONF timeout 60 python3 day077_torch.py >> "$out/raw/d77_torch" 2>&1
    else
        PYTORCH_CUDA_ALLOC_CONF=$conf timeout 60 python3 day077_torch.py >> "$out/raw/d77_torch" 2>&1
    fi
done
say "D77.torch | peak handed out / peak reserved / segments, native, async, expandable (one run each) | $(grep '^peak' "$out/raw/d77_torch" | tr '\n' ';') | the lesson quotes 160/1296/18, 158/224/0, 158/160/0"

heapfrag
cd "$work"

ap measure
sp measure

echo "figures.sh: done in ${SECONDS} s; every raw output is in $out/raw" | tee -a "$report"
