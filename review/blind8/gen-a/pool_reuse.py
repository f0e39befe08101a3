"""pool-reuse: the correct design and four wrong files (blind8, first half)."""
from mk import student, edit, header, write, wrong

EX, EXT = "pool-reuse", "cu"
t = student("exercises/day069/pool_reuse.cu")

t = edit(t, """static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    (void)pool;
    (void)a;
    return 0;
}""", """static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

// set_attr sets one of the pool's uint64_t attributes (a mark reset to 0,
// or the release threshold).
static cudaError_t set_attr(cudaMemPool_t pool, cudaMemPoolAttr a, uint64_t v) {
    return cudaMemPoolSetAttribute(pool, a, &v);
}""")

t = edit(t, """static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    (void)device;
    (void)pool;
    return cudaErrorNotYetImplemented;
}""", """static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    // A new pool's threshold is already 0; said again here so that the
    // program does not depend on a default.
    return set_attr(*pool, cudaMemPoolAttrReleaseThreshold, 0);
}""")

t = edit(t, """static bool held(cudaMemPool_t pool, uint64_t need) {
    (void)pool;
    (void)need;
    return false;
}""", """// What the pool holds reserved and not handed out: the memory a round
// can take without asking the driver.
static bool held(cudaMemPool_t pool, uint64_t need) {
    const uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);
    const uint64_t used = attr(pool, cudaMemPoolAttrUsedMemCurrent);
    return reserved >= used && reserved - used >= need;
}""")

t = edit(t, """static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    return 0;
}""", """static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    // Nothing held before the round, and the marks start from there.
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrUsedMemHigh, 0));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    return 0;
}""")

t = edit(t, """static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    return 0;
}""", """static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    // Nothing is in use between phases, so the used mark restarts at 0
    // whenever it is reset; the reserved mark only after the trim, so that
    // it does not remember what the trim gives back.
    CHECK(set_attr(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(set_attr(pool, cudaMemPoolAttrReservedMemHigh, 0));
    return 0;
}""")

t = edit(t, """static int report(cudaMemPool_t pool, const char* name) {
    return 0;
}""", """static int report(cudaMemPool_t pool, const char* name) {
    printf("phase %s: used high %" PRIu64 " MiB, reserved high %" PRIu64 " MiB, threshold %" PRIu64 " MiB\\n", name,
           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB,
           attr(pool, cudaMemPoolAttrReleaseThreshold) / MiB);
    return 0;
}""")

t = edit(t, """static int finish(cudaMemPool_t pool) {
    return 0;
}""", """static int finish(cudaMemPool_t pool) {
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, 0));
    return 0;
}""")

write(EX, "correct.cu", header(
    "correct",
    "none: a set_attr helper; make_pool sets the threshold 0 again after cudaMemPoolCreate; held is reserved minus used against the need; measure_peak trims to 0 and resets both marks before one round, the peak from the reserved mark; enter_phase resets the used mark, sets the threshold, trims to the peak and only then resets the reserved mark; finish trims to 0, then sets the threshold to 0.",
    "none: it is correct.",
    "none (written from the lesson and the student file)."), t)
correct = t

wrong(EX, EXT, correct, "reserved-high-read-from-current",
      "wrong (the record only: the printed figure is the same on every run the program makes)",
      "report prints the pool's reserved memory now (cudaMemPoolAttrReservedMemCurrent) as its 'reserved high', taking the figure after the phase's last round for the phase's high-water mark.",
      "the report promises the high-water mark; here the two agree only because every round of a phase reserves the same and the threshold keeps exactly that; the program never asks the pool for its reserved mark, and any phase whose last round reserves less than an earlier one would print too little.",
      "radixark/miles#2830 (instantaneous memory readings reported where the high-water marks, 'the true per-rank peak', were meant), PrimeIntellect-ai/prime-rl#1118 (a logged peak that was not the peak: the wrong one of the allocator's figures)",
      [("""           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB,""",
        """           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB,""")])

wrong(EX, EXT, correct, "held-only-on-an-exact-match",
      "wrong (shows only with buffer sizes the pool rounds up, such as MIB 3: no round finds its memory)",
      "held says yes only when what the pool holds free is exactly the round's need (reserved - used == need), not at least the need.",
      "a pool reserves in its own units and may hold more than the buffers' sum (3 MiB buffers take 4 MiB each); with 32 MiB buffers the two are equal, so the default and the secret workloads print right, but any size the pool rounds makes every round report its memory missing though it is there.",
      "own (a comparison written with == where 'at least' was meant; the lesson's 'the pool may round up' MIB)",
      [("""    return reserved >= used && reserved - used >= need;""", """    return reserved >= used && reserved - used == need;""")])

wrong(EX, EXT, correct, "used-mark-reset-by-a-copied-line",
      "wrong (the narrow phase's used high-water mark still counts the wide phase)",
      "enter_phase's first reset is a copy of its last one: it resets cudaMemPoolAttrReservedMemHigh twice and the used mark never, so from the measurements on the used mark is never restarted.",
      "the marks must count each phase alone: the narrow report's used high is the wide phase's 4 x 32 MiB, not the one buffer its rounds hold; the reserved figures and the threshold are right, so only one number of the report is off.",
      "NVlabs/cutile-rs#129 (reset_used_high and reset_reserved_high: two watermarks, each reset on its own by writing 0 to its own attribute), pytorch/pytorch#40989 (peak figures reset in a loop between parameter runs, read to size each run alone)",
      [("""    CHECK(set_attr(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, peak));""", """    CHECK(set_attr(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, peak));""")])

wrong(EX, EXT, correct, "threshold-never-lowered",
      "wrong (the narrow phase keeps the wide phase's threshold: it may hold four times what its rounds need)",
      "enter_phase raises the release threshold to the phase's peak but never lowers it (max of the pool's threshold and the peak), so that a later phase 'cannot lose' memory an earlier one needed.",
      "the policy is the phase's peak and no more: in the narrow phase the pool may keep 128 MiB across each synchronisation where its rounds need 32; the trim at entry still gives the rest back at once, so the rounds and the reserved figures look right, and only the threshold read back says 128.",
      "rapidsai/rmm#2512 and NVIDIA/cccl#10618 (a release threshold only ever raised: an existing value kept, a zero one bumped to the maximum; the review notes that the pool then retains unused memory across synchronisations)",
      [("""    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));""", """    const uint64_t now = attr(pool, cudaMemPoolAttrReleaseThreshold);
    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, now > peak ? now : peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));""")])
