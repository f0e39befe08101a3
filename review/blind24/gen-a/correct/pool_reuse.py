EX = "pool-reuse"
STUDENT = "exercises/day069/pool_reuse.cu"
DESIGN = ("attr reads through an unsigned long (static_assert'ed 64 bits) and clears a failed call's error; a put() helper writes any 64-bit attribute; "
          "make_pool from value-initialised props and WRITES NO threshold: it reads the new pool's release threshold back and writes 0 only if the pool did not come with 0; "
          "held asks whether what the pool reserves covers what is in use plus the need; measure_peak trims to 0 and restarts the RESERVED mark only (the used mark is "
          "left alone there), runs the round and reads the reserved mark; enter_phase writes the threshold, trims to the peak, restarts the used then the reserved mark; "
          "finish only trims to 0 and leaves the phase's threshold as it is (nothing runs on the pool after it)")
EDITS = [
("""static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    (void)pool;
    (void)a;
    return 0;
}""",
"""static_assert(sizeof(unsigned long) == 8, "the 64-bit attributes are read through an unsigned long");
static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    unsigned long v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

// put writes a 64-bit attribute of the pool.
static cudaError_t put(cudaMemPool_t pool, cudaMemPoolAttr a, uint64_t value) {
    unsigned long v = value;
    return cudaMemPoolSetAttribute(pool, a, &v);
}"""),
("""static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    (void)device;
    (void)pool;
    return cudaErrorNotYetImplemented;
}""",
"""static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    // A new pool comes with a threshold of 0; written only if this one did not.
    if (attr(*pool, cudaMemPoolAttrReleaseThreshold) != 0) return put(*pool, cudaMemPoolAttrReleaseThreshold, 0);
    return cudaSuccess;
}"""),
("""static bool held(cudaMemPool_t pool, uint64_t need) {
    (void)pool;
    (void)need;
    return false;
}""",
"""static bool held(cudaMemPool_t pool, uint64_t need) {
    return attr(pool, cudaMemPoolAttrReservedMemCurrent) >= attr(pool, cudaMemPoolAttrUsedMemCurrent) + need;
}"""),
("""static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    return 0;
}""",
"""static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    // Nothing held, and the reserved mark restarted at that nothing: what
    // it reaches is the round's alone.
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(put(pool, cudaMemPoolAttrReservedMemHigh, 0));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    return 0;
}"""),
("""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    return 0;
}""",
"""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(put(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(put(pool, cudaMemPoolAttrReservedMemHigh, 0));
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
    // Given back now; the threshold only matters at later synchronisations,
    // and none comes before the pool is destroyed.
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}"""),
]
