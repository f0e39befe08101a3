ID = "pool-reuse"
SRC = "exercises/day069/pool_reuse.cu"
NOTE = "Correct design: held compares what the pool holds free (reserved minus used) with the need; measure_peak trims the pool to nothing first and then reads the reserved high-water mark of one round; enter_phase sets the threshold, trims to the peak, and only then resets both marks."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = []
E.append(("""static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    (void)pool;
    (void)a;
    return 0;
}""", """static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    uint64_t v = 0;
    if (pool == nullptr || cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

// set writes one of the pool's uint64_t attributes.
static cudaError_t set(cudaMemPool_t pool, cudaMemPoolAttr a, uint64_t v) {
    return cudaMemPoolSetAttribute(pool, a, &v);
}"""))
E.append(("""static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    (void)device;
    (void)pool;
    return cudaErrorNotYetImplemented;
}""", """static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    return cudaMemPoolCreate(pool, &props);
}"""))
E.append(("""static bool held(cudaMemPool_t pool, uint64_t need) {
    (void)pool;
    (void)need;
    return false;
}""", """static bool held(cudaMemPool_t pool, uint64_t need) {
    // What is reserved and not handed out is what a round can take.
    const uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);
    const uint64_t used = attr(pool, cudaMemPoolAttrUsedMemCurrent);
    return reserved >= used && reserved - used >= need;
}"""))
E.append(("""static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    return 0;
}""", """static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    // From an empty pool, so the mark counts this round's reservations only.
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    return 0;
}"""))
E.append(("""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    return 0;
}""", """static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak)); // now, not at the next synchronisation
    // After the trim: a reset starts the marks from what the pool counts now.
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    return 0;
}"""))
E.append(("""static int report(cudaMemPool_t pool, const char* name) {
    return 0;
}""", """static int report(cudaMemPool_t pool, const char* name) {
    printf("phase %s: used high %" PRIu64 " MiB, reserved high %" PRIu64 " MiB, threshold %" PRIu64 " MiB\\n", name,
           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB,
           attr(pool, cudaMemPoolAttrReleaseThreshold) / MiB);
    return 0;
}"""))
E.append(("""static int finish(cudaMemPool_t pool) {
    return 0;
}""", """static int finish(cudaMemPool_t pool) {
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}"""))
CORRECT = (H("correct", "None intended: own pool, threshold of the measured reserved peak, trim at the boundary, marks reset after the trim, held measured as reserved minus used.", "n/a", "own"), E)
WRONGS = [
 ("reset-before-trim",
  H("order of a reset and a trim",
    "enter_phase resets the high-water marks first and then sets the threshold and trims. At the narrow phase's start the pool still holds the wide phase's 128 MiB when the marks are reset, so the narrow phase's reserved high mark reports the wide phase's memory, not its own.",
    "Day 70, 'Exercise: pool-reuse': a mark reset starts again from what the pool counts at that moment, 'so a reset before the boundary's trim still remembers the wide phase'.",
    "own"),
  [("""    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak)); // now, not at the next synchronisation
    // After the trim: a reset starts the marks from what the pool counts now.
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));""",
    """    // A clean slate for the phase's statistics first.
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));""")]),
 ("set-as-device-pool",
  H("settings on the wrong pool (the process-wide one)",
    "make_pool creates the pool and then also makes it the device's current pool with cudaDeviceSetMemPool, 'so that cudaMallocAsync uses it too'. The program's own output does not change, but every cudaMallocAsync of every library in the process now allocates from, and is trimmed by, this program's phase policy.",
    "Day 70, 'Exercise: pool-reuse': make_pool makes a pool 'apart from the device's default pool, which every library of the process shares'; the current pool is what cudaMallocAsync uses for every caller.",
    "https://github.com/cupy/cupy/pull/5191 (the 'current' pool set by cudaDeviceSetMemPool is picked up by other libraries of the process)"),
  [("""    props.location.id = device;
    return cudaMemPoolCreate(pool, &props);""", """    props.location.id = device;
    cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    return cudaDeviceSetMemPool(device, *pool); // so cudaMallocAsync uses it too""")]),
 ("used-high-as-peak",
  H("the wrong high-water mark (a branch the defaults never take)",
    "measure_peak reads cudaMemPoolAttrUsedMemHigh instead of the reserved mark, so the threshold is what the round's buffers asked for, not what the pool reserved for them. With buffers of 32 MiB the two are equal and every figure prints as expected; with sizes the pool rounds up, the threshold falls short of what the rounds reserve and memory goes back to the driver at every synchronisation.",
    "Day 70, 'Configuring the pool' and 'What the used-memory figures count': the threshold is about reserved memory; the used figures count what the host has not freed.",
    "own"),
  [("""    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);""", """    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrUsedMemHigh); // the most the round had live""")]),
 ("device-sync-to-shrink",
  H("host wait disguised as a policy",
    "enter_phase sets the new threshold and then calls cudaDeviceSynchronize so that the pool releases what it holds beyond it, instead of trimming. The pool does shrink and every line prints as expected, but the policy now waits for the whole device at every phase boundary.",
    "Day 70, 'Exercise: pool-reuse': 'A release threshold acts only at the next synchronisation, while cudaMemPoolTrimTo gives memory back at once'; no wait of the policy's own ('no cudaDeviceSynchronize to make the pool shrink: trim it').",
    "own"),
  [("""    CHECK(cudaMemPoolTrimTo(pool, peak)); // now, not at the next synchronisation""",
    """    CHECK(cudaDeviceSynchronize()); // a synchronisation applies the new threshold""")]),
 ("trim-to-zero-at-entry",
  H("gives back what the phase needs",
    "enter_phase trims the pool to 0 'to start each phase clean' and then sets the threshold. The narrow phase then begins with nothing reserved, so its first round pays the driver again, and the pool does not hold the narrow phase's peak as the phase begins.",
    "Day 70, 'Exercise: pool-reuse': what the pool holds beyond the peak goes back at the boundary, and it keeps what the phase's rounds need (cudaMemPoolTrimTo(pool, keep) keeps at least keep bytes).",
    "own"),
  [("""    CHECK(cudaMemPoolTrimTo(pool, peak)); // now, not at the next synchronisation""",
    """    CHECK(cudaMemPoolTrimTo(pool, 0)); // a clean pool for the new phase""")]),
]
