from mk import build

CORRECT = dict(
    kind='correct (a design of its own)',
    mistake='none. measure_peak trims the pool to nothing and resets the reserved high-water mark before its round, so the mark starts from 0; enter_phase trims to the phase\'s peak first, then sets the threshold, then resets both marks, so they start from what the phase keeps; finish sets the threshold back to 0 and trims.',
    **{'why it is wrong': 'it is not: every figure is read from the program\'s own pool into a uint64_t, the pool is its own (cudaMemPoolCreate) with its threshold left at 0 until a phase sets it, the pool shrinks by trimming, never by a device wait, and each phase\'s marks count that phase alone.'},
    source='the lesson (day 69, "Configuring the pool" and "Exercise: pool-reuse"); the runtime API reference, cudaMemPoolTrimTo and cudaMemPoolSetAttribute (a high-water mark is reset by setting it to 0).',
)

C = [
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

// set64 sets one of the pool's uint64_t attributes.
static cudaError_t set64(cudaMemPool_t pool, cudaMemPoolAttr a, uint64_t v) {
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
    return attr(pool, cudaMemPoolAttrReservedMemCurrent) >= need;
}"""),
("""static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    return 0;
}""",
"""static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    // An empty pool first: the reset below starts the mark from what the
    // pool holds, and then it is nothing.
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(set64(pool, cudaMemPoolAttrReservedMemHigh, 0));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    if (*peak == 0) {
        fprintf(stderr, "the pool reported no reservation for a round of %s\\n", ph.name);
        return 1;
    }
    return 0;
}"""),
("""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    return 0;
}""",
"""static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    // What the pool holds beyond the phase's peak goes now (a threshold
    // would act only at the next synchronisation); then the threshold
    // keeps the peak across the rounds' synchronisations; last the marks
    // start again, from what the pool holds after the trim.
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(set64(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(set64(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set64(pool, cudaMemPoolAttrReservedMemHigh, 0));
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
    CHECK(set64(pool, cudaMemPoolAttrReleaseThreshold, 0));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}"""),
]

W = []

W.append(('attr-into-uint32', dict(
    kind='an API used with the wrong type',
    mistake='attr reads the attribute into an unsigned int, the type of the policy attributes, and returns it widened.',
    **{'why it is wrong': 'the marks, the threshold and the current figures are 64-bit attributes: cudaMemPoolGetAttribute writes eight bytes into a four-byte variable, past it on the stack. Figures under 4 GiB still come out right on a little-endian machine, so the output looks correct while the program writes memory it does not own.'},
    source='NVIDIA/cuda-python#1272 ("Fix an invalid memory access in call to cuMemPoolGetAttribute": the value read into 32 bits where the driver writes 64); the lesson (day 69, "Pitfall: uint64_t needs its header").',
), [
("""    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {""",
"""    unsigned int v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {"""),
]))

W.append(('reset-used-high-only', dict(
    kind='a missing step: one of two marks never reset',
    mistake='enter_phase resets the used high-water mark but not the reserved one, thinking "the marks" meant the used figure.',
    **{'why it is wrong': 'the reserved mark then still holds the wide phase\'s 128 MiB when the narrow phase is reported: the figure does not count that phase alone.'},
    source='the lesson (day 69: "the marks reset, so that they count this phase alone"); NVlabs/cutile-rs#129 (the used and reserved high watermarks are two counters, each reset on its own by writing 0).',
), [
("""    CHECK(set64(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set64(pool, cudaMemPoolAttrReservedMemHigh, 0));
    return 0;""",
"""    CHECK(set64(pool, cudaMemPoolAttrUsedMemHigh, 0));
    return 0;"""),
]))

W.append(('held-from-high-mark', dict(
    kind='a latent mistake: a figure that agrees only while the policy is right',
    mistake='held asks the reserved high-water mark instead of what the pool reserves now.',
    **{'why it is wrong': 'the mark remembers the most the pool ever held since its reset, not what it holds: a round after the pool released its memory still "finds its memory reserved". With this program\'s policy the two agree on every round, so the output is the same; the figure would lie as soon as the pool gave memory back between rounds.'},
    source='the lesson (day 69, "What the used-memory figures count": a high-water mark counts from its last reset); NVIDIA/warp#446 (the current and high figures are separate attributes).',
), [
("""    return attr(pool, cudaMemPoolAttrReservedMemCurrent) >= need;""",
"""    return attr(pool, cudaMemPoolAttrReservedMemHigh) >= need;"""),
]))

W.append(('threshold-max-at-creation', dict(
    kind='an API setting with the wrong value',
    mistake='make_pool sets the new pool\'s release threshold to UINT64_MAX, as libraries do for their pools, so that nothing goes back to the driver.',
    **{'why it is wrong': 'the exercise asks for the pool as it comes, its threshold 0: measuring with a pool that keeps everything leaves the narrow phase\'s memory reserved when the wide phase begins (entering wide: reserved 32 MiB instead of 0), so the phase boundary no longer starts from what the policy decided.'},
    source='rapidsai/rmm#2512 ("Set managed pool release threshold to maximum"); NVIDIA/cuda-python#930 (a new pool\'s threshold set to 0xFFFFFFFFFFFFFFFF when it is 0); the lesson (day 69: "whatever a recipe says, keeping everything here would spoil the measurements").',
), [
("""    return cudaMemPoolCreate(pool, &props);
}""",
"""    cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    return set64(*pool, cudaMemPoolAttrReleaseThreshold, UINT64_MAX);   // keep what we reserve
}"""),
]))

W.append(('finish-threshold-only', dict(
    kind='an API whose effect comes later: a threshold for a trim',
    mistake='finish sets the release threshold to 0 and does not trim, expecting the pool to give its memory back.',
    **{'why it is wrong': 'a threshold acts only at the next synchronisation, and nothing synchronises between finish and the program\'s last figure: the pool still holds the narrow phase\'s memory ("after the trim: reserved 32 MiB").'},
    source='ROCm/hip#3533 (the threshold releases memory "during the next call to stream, event, or context synchronization"); rapidsai/rmm#676 review (whether to trim or synchronise first at teardown); the lesson (day 69: "A release threshold acts only at the next synchronization").',
), [
("""    CHECK(set64(pool, cudaMemPoolAttrReleaseThreshold, 0));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;""",
"""    CHECK(set64(pool, cudaMemPoolAttrReleaseThreshold, 0));   // the pool keeps nothing now
    return 0;"""),
]))

build('pool-reuse', 'exercises/day069/pool_reuse.cu', CORRECT, C, W)
