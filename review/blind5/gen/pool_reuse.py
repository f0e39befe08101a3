STUDENT = "exercises/day069/pool_reuse.cu"
DIR = "pool-reuse"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. measure_peak trims the pool to nothing and resets the reserved
    mark to 0 before its round, so the mark counts that round alone; enter_phase
    sets the threshold first, then trims to the peak, then resets both marks;
    held asks whether the reserved memory not in use (reserved minus used)
    covers the round; finish trims to nothing and then sets the threshold to 0.""",
    why="""it is not: the marks are reset after the trim, so they start from what
    the pool keeps for the phase; the threshold keeps the peak across each
    synchronisation; finish's trim acts at once.""",
    source="""own design from the lesson (day 69, "Configuring the pool", "What the
    used-memory figures count", "Exercise: pool-reuse"); the runtime API
    reference, cudaMemPoolSetAttribute and cudaMemPoolTrimTo.""")

CORRECT = [
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

// set_attr writes a uint64_t attribute of the pool.
static cudaError_t set_attr(cudaMemPool_t pool, cudaMemPoolAttr a, uint64_t v) {
    return cudaMemPoolSetAttribute(pool, a, &v);
}"""),
("""static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    (void)device;
    (void)pool;
    return cudaErrorNotYetImplemented;
}""",
"""static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
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
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrReservedMemHigh, 0));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    return 0;
}"""),
("""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    return 0;
}""",
"""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(set_attr(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrUsedMemHigh, 0));
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
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, 0));
    return 0;
}"""),
("#include <cstdlib>\n", "#include <cstdlib>\n#include <cstring>\n"),
]

WRONG = [
("marks-reset-to-current", dict(
    kind="a wrong attribute value: the high-water marks 'reset' to the current figures",
    mistake="""enter_phase resets each high-water mark by writing the pool's current
    figure into it (reserved high := reserved current, used high := used
    current), meaning "start again from here", instead of writing 0.""",
    why="""a high-water mark can only be reset by writing 0 (it then starts from
    the current figure by itself); any other value is refused with an invalid
    value error, so the phase's first CHECK fails and the program stops before
    the wide phase runs.""",
    source="""NVlabs/cutile-rs#129 ("high watermarks reset via the CUDA 'write 0'
    convention"); flagos-ai/Torch-FL#364 (a peak reset that did the wrong thing
    with the live totals); the runtime API reference, cudaMemPoolSetAttribute
    ("the value must be 0")."""),
 [("""    CHECK(set_attr(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set_attr(pool, cudaMemPoolAttrUsedMemHigh, 0));""",
   """    CHECK(set_attr(pool, cudaMemPoolAttrReservedMemHigh, attr(pool, cudaMemPoolAttrReservedMemCurrent)));
    CHECK(set_attr(pool, cudaMemPoolAttrUsedMemHigh, attr(pool, cudaMemPoolAttrUsedMemCurrent)));""")]),
("pool-props-location-type-unset", dict(
    kind="a missing field: the pool's location type left zero",
    mistake="""make_pool zero-fills cudaMemPoolProps and sets the allocation type and
    the location's id (the device), but not the location's type, which stays 0
    (cudaMemLocationTypeInvalid).""",
    why="""a device pool must say that its location is a device
    (cudaMemLocationTypeDevice); with an invalid location type
    cudaMemPoolCreate fails with an invalid value error and the program stops at
    once, making no pool.""",
    source="""NVIDIA/cccl#11462 (the cudaMemPoolCreate reference quoted in review:
    "applications must set cudaMemPoolProps::cudaMemLocation::type", other values
    give cudaErrorInvalidValue); the runtime API reference, cudaMemPoolProps."""),
 [("""    props.location.type = cudaMemLocationTypeDevice;
""", "")]),
("trim-by-the-excess", dict(
    kind="a misread argument: cudaMemPoolTrimTo given the bytes to give back, not the bytes to keep",
    mistake="""enter_phase computes how much the pool holds beyond the phase's peak
    and passes that to cudaMemPoolTrimTo, reading its second argument as the
    amount to release (0 when the pool holds no more than the peak).""",
    why="""cudaMemPoolTrimTo(pool, minBytesToKeep) keeps at least that many bytes:
    entering the narrow phase with 128 MiB held and a peak of 32 MiB, it keeps
    96 MiB instead of 32, and when the pool holds no more than the peak it trims
    to 0, throwing away what the phase's first round needs.""",
    source="""XRPLF/rippled#6022 (review of malloc_trim: its argument is the amount
    to leave untrimmed, not the amount to release); the runtime API reference,
    cudaMemPoolTrimTo ("minBytesToKeep")."""),
 [("""    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(set_attr(pool, cudaMemPoolAttrReservedMemHigh, 0));""",
   """    const uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);
    CHECK(cudaMemPoolTrimTo(pool, reserved > peak ? reserved - peak : 0));
    CHECK(set_attr(pool, cudaMemPoolAttrReservedMemHigh, 0));""")]),
]
