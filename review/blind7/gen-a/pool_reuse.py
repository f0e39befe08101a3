EXERCISE = 'pool-reuse'
STUDENT = 'exercises/day069/pool_reuse.cu'
EXT = 'cu'
TODO = [
("""static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    (void)pool;
    (void)a;
    return 0;
}""",
"""static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return v;
}

// set writes one of the pool's uint64_t attributes.
static cudaError_t set(cudaMemPool_t pool, cudaMemPoolAttr a, uint64_t v) {
    return cudaMemPoolSetAttribute(pool, a, &v);
}"""),
("""static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    (void)device;
    (void)pool;
    return cudaErrorNotYetImplemented;
}""",
"""static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    return cudaMemPoolCreate(pool, &props);
}"""),
("""static bool held(cudaMemPool_t pool, uint64_t need) {
    (void)pool;
    (void)need;
    return false;
}""",
"""static bool held(cudaMemPool_t pool, uint64_t need) {
    // Nothing is in use between rounds: what the pool has reserved now is
    // what the next round can take without the driver.
    return attr(pool, cudaMemPoolAttrReservedMemCurrent) >= need;
}"""),
("""static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    return 0;
}""",
"""static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    // Empty the pool first, then restart the mark from that empty pool:
    // the mark then counts this round's reservations alone.
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    return 0;
}"""),
("""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    return 0;
}""",
"""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    // Give back what is beyond the phase's need now; then restart both
    // marks from what is left; then the policy for the syncs to come.
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    return 0;
}"""),
("""static int report(cudaMemPool_t pool, const char* name) {
    return 0;
}""",
"""static int report(cudaMemPool_t pool, const char* name) {
    printf("phase %s: used high %" PRIu64 " MiB, reserved high %" PRIu64 " MiB, threshold %" PRIu64 " MiB\\n", name,
           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB,
           attr(pool, cudaMemPoolAttrReleaseThreshold) / MiB);
    return 0;
}"""),
("""static int finish(cudaMemPool_t pool) {
    return 0;
}""",
"""static int finish(cudaMemPool_t pool) {
    // Every round has been waited for: the trim gives back all of it now,
    // and a threshold of 0 keeps nothing at any later sync.
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));
    return 0;
}"""),
]
CORRECT = dict(
    kind='correct',
    mistake="none: held is what the pool reserves now against the round's need; measure_peak empties the pool, restarts the reserved mark and reads it after one round; enter_phase trims to the peak, then restarts both marks, then sets the threshold; finish trims to 0, then sets the threshold to 0",
    **{'why it is wrong': 'it is not: the marks restart after the trim, so they count the phase alone; the threshold keeps what a round reserves across each synchronisation'},
    source='none (written from the lesson and the student file)')
WRONG = [
('threshold-in-mib-shifted-as-int',
 dict(kind='wrong (a size on a boundary: shows only when a phase reserves 2 GiB)',
      mistake="enter_phase works in whole MiB, as the report prints them: it keeps the peak as an int count of MiB and sets the threshold (and the trim) to that count shifted left by 20, the shift done in int",
      **{'why it is wrong': "for every phase under 2048 MiB the shift fits in an int and the figures are right; 8 buffers of 256 MiB make a wide peak of 2048 MiB, whose shift overflows int (2^31), and the negative result, widened to 64 bits, is a threshold and a trim size of about 16 EiB: the pool keeps everything, trims nothing, and the narrow phase then holds the wide phase's 2 GiB"},
      source='UoB-HPC/BabelStream#123 and UoB-HPC/BabelStream#136 (a CUDA buffer size computed in int, 3*ARRAY_SIZE*sizeof(T) with an int first factor, overflowed and was sign-extended to size_t)'),
 [("""    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));""",
   """    const int mib = (int)(peak / MiB);   // the pool reserves whole MiB
    CHECK(cudaMemPoolTrimTo(pool, mib << 20));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, mib << 20));""")]),
('threshold-max-while-measuring',
 dict(kind='wrong (a policy the counts do not show: the pool keeps a round after the measurements)',
      mistake="measure_peak raises the release threshold to the largest value around its round, as the recipes for a pool advise, so that nothing is released before the mark is read, and sets it back to 0 afterwards without a trim",
      **{'why it is wrong': "the exercise's pool must keep nothing across a synchronisation until a phase says so; this one keeps the narrow measurement's 32 MiB reserved past the measurements (a threshold of 0 releases only at the next sync, and none comes before the wide phase), and twice in the run its threshold says keep everything. The counts printed are the same, since the wide phase needs more than the 32 MiB left; only the line entering wide: reserved 32 MiB (0 for the reference) shows it, a figure the lesson does not print"},
      source="NVIDIA/cuda-python#771, NVIDIA/cccl#6718 and rapidsai/rmm#2379 (a pool's release threshold raised to the maximum as the advised default)"),
 [("""    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    return 0;""",
   """    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    // Keep the round's memory until its mark is read.
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, UINT64_MAX));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));
    return 0;""")]),
('threshold-left-to-shrink-at-the-next-sync',
 dict(kind='wrong (a step left to a later synchronisation: the counts are right)',
      mistake="enter_phase lowers the release threshold to the peak and restarts the marks, but gives nothing back itself: it leaves the shrinking to the next synchronisation, which the threshold governs",
      **{'why it is wrong': "the exercise asks that what the pool holds beyond the peak go back now, before the phase's first round; here the narrow phase starts with the wide phase's 128 MiB reserved (\"entering narrow: reserved 128 MiB\"), and its marks, restarted from that, say 128 MiB reserved high for a phase that needs 32. The rounds all find their memory, so the counts printed are the reference's"},
      source='JuliaGPU/CUDA.jl#1540 (lowering the release threshold to make CUDA trim the pool at synchronisation events, instead of trimming)'),
 [("""    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));""",
   """    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));""")]),
]
