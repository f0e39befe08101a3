import sys; sys.path.insert(0, '.')
from mk import build
src = open('../../exercises/day069/pool_reuse.cu').read()
D = 'pool-reuse/'
correct = [
("""static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    (void)pool;
    (void)a;
    return 0;
}""",
"""static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

// set is attribute a of the pool set to v.
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
    const uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);
    const uint64_t used = attr(pool, cudaMemPoolAttrUsedMemCurrent);
    return reserved >= used && reserved - used >= need;
}"""),
("""static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    return 0;
}""",
"""static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    // Start from an empty pool, so that the mark counts this round alone.
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
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
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
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}"""),
]
H = """kind: correct
mistake: none: a pool of its own (cudaMemPoolCreate, pinned device memory, threshold as it
  comes), held = reserved minus used covers the round, a peak measured from an emptied
  pool with the reserved mark reset, a phase entered with its threshold, a trim to its
  peak and both marks reset, everything trimmed at the end.
why it is wrong: it is not (lesson day 69, exercise pool-reuse).
source: own"""
body = build(src, D + 'correct.cu', H, correct)
def wrong(slug, header, pairs):
    build(body, D + 'wrong-' + slug + '.cu', header, pairs)

wrong('peak-from-request', """kind: wrong (a branch the defaults never take)
mistake: measure_peak runs the round but sets the peak to what the round asks for
  (buffers times bytes) instead of what the pool's reserved mark says it reserved.
why it is wrong: the exercise asks for the bytes the pool reserves, "measured with the
  pool's own attributes"; the pool reserves in its own granularity and may round a
  buffer up (the usage line: "MIB sets the buffers' size, which the pool may round up"),
  so with buffers of a size that is not a multiple of it the threshold is too small and
  the rounds lose their memory at each synchronisation. With 32 MiB buffers the two
  figures agree.
source: own""", [
("""    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);""",
"""    *peak = (uint64_t)ph.buffers * ph.bytes; // what one round holds at once"""),
])

wrong('pool-on-device-zero', """kind: wrong (a branch the defaults never take)
mistake: make_pool fills the pool's location with device 0, copied from an example,
  instead of the device it is given.
why it is wrong: cudaMemPoolProps.location.id names the device whose memory the pool
  holds (CUDA Runtime API, cudaMemPoolCreate); on any device but 0 the program's rounds
  would allocate another GPU's memory. main uses device 0, so nothing shows.
source: own
unseen: nothing the judge runs can see it (main fixes the device at 0); kept in
  solutions/day069/unseen/pool-reuse/blind3_pool_on_device_zero.patch (session 14)""", [
("""    props.location.id = device;""",
"""    props.location.id = 0;"""),
])

wrong('attr-garbage-on-error', """kind: wrong (a branch the defaults never take)
mistake: attr returns its variable whatever cudaMemPoolGetAttribute answered, leaving it
  uninitialised, and leaves the error set.
why it is wrong: the exercise says 0 "when the pool cannot say"; on an error the value
  is whatever was on the stack, and the sticky-looking last error is left for the next
  CHECK'd call's cudaGetLastError to find. Every attribute asked here exists, so the
  defaults never reach it.
source: own""", [
("""    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;""",
"""    uint64_t v;
    cudaMemPoolGetAttribute(pool, a, &v);
    return v;"""),
])

wrong('report-threshold-remembered', """kind: wrong (a figure printed from memory, not from the pool)
mistake: enter_phase keeps the threshold it set in a variable, and report prints that
  variable instead of asking the pool for cudaMemPoolAttrReleaseThreshold.
why it is wrong: the exercise's report prints the marks "and the threshold, read back
  from the pool" (lesson day 69, exercise pool-reuse); a set that failed or went to
  another pool would still print as set. On the defaults the two agree.
source: own""", [
("""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));""",
"""static uint64_t threshold_set = 0; // what enter_phase last set

static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    threshold_set = peak;
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));"""),
("""           attr(pool, cudaMemPoolAttrReleaseThreshold) / MiB);""",
"""           threshold_set / MiB);"""),
])
