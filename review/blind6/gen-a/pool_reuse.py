from gen import read, edit, header, write

S = read("exercises/day069/pool_reuse.cu")

C = S
C = edit(C, """static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
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

// set_attr sets one of the pool's 64-bit attributes.
static cudaError_t set_attr(cudaMemPool_t pool, cudaMemPoolAttr a, uint64_t value) {
    uint64_t v = value;
    return cudaMemPoolSetAttribute(pool, a, &v);
}""")
C = edit(C, """static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    (void)device;
    (void)pool;
    return cudaErrorNotYetImplemented;
}""", """static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    err = set_attr(*pool, cudaMemPoolAttrReleaseThreshold, 0);
    if (err != cudaSuccess) {
        cudaMemPoolDestroy(*pool);
        *pool = nullptr;
    }
    return err;
}""")
C = edit(C, "#include <cinttypes>\n", "#include <cinttypes>\n#include <cstring>\n")
C = edit(C, """static bool held(cudaMemPool_t pool, uint64_t need) {
    (void)pool;
    (void)need;
    return false;
}""", """static bool held(cudaMemPool_t pool, uint64_t need) {
    // between rounds nothing is in use: all that is reserved is free to take
    const uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);
    const uint64_t used = attr(pool, cudaMemPoolAttrUsedMemCurrent);
    return reserved >= used && reserved - used >= need;
}

// reset_marks starts both high-water marks again from what the pool holds
// and uses now.
static cudaError_t reset_marks(cudaMemPool_t pool) {
    cudaError_t err = set_attr(pool, cudaMemPoolAttrReservedMemHigh, 0);
    if (err == cudaSuccess) err = set_attr(pool, cudaMemPoolAttrUsedMemHigh, 0);
    return err;
}""")
C = edit(C, """static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    return 0;
}""", """static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    // from nothing: whatever the pool holds would count in the mark
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(reset_marks(pool));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    return 0;
}""")
C = edit(C, """static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    return 0;
}""", """static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    // the excess first (at once), then the policy for the phase's
    // synchronisations, then the marks, from what is left
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(reset_marks(pool));
    return 0;
}""")
C = edit(C, """static int report(cudaMemPool_t pool, const char* name) {
    return 0;
}""", """static int report(cudaMemPool_t pool, const char* name) {
    printf("phase %s: used high %" PRIu64 " MiB, reserved high %" PRIu64 " MiB, threshold %" PRIu64 " MiB\\n", name,
           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB,
           attr(pool, cudaMemPoolAttrReleaseThreshold) / MiB);
    return 0;
}""")
C = edit(C, """static int finish(cudaMemPool_t pool) {
    return 0;
}""", """static int finish(cudaMemPool_t pool) {
    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, 0));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}""")
write("pool-reuse", "correct.cu", header(
    "correct",
    "none: held = reserved minus used; measure_peak trims to 0 and resets both marks before its round; enter_phase trims to the peak, then sets the threshold, then resets the marks; finish sets the threshold to 0, then trims to 0.",
    "it is not wrong: every figure belongs to its phase, the settings are made on the program's own pool with 64-bit values.",
    "none (written from the lesson and the student file).") + C)

# wrong 1: the threshold set from an int.
W1 = C
W1 = edit(W1, """    CHECK(set_attr(pool, cudaMemPoolAttrReleaseThreshold, peak));""", """    // peak fits in an int for any phase this program runs (2 GiB at most)
    int keep = (int)peak;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));""")
write("pool-reuse", "wrong-threshold-set-from-int.cu", header(
    "wrong",
    "enter_phase sets the release threshold from an int variable (the peak fits in 31 bits), passing its address to cudaMemPoolSetAttribute.",
    "cudaMemPoolAttrReleaseThreshold is a 64-bit value (cuuint64_t): the driver reads 8 bytes from the address of a 4-byte int, the low half the peak and the high half whatever lies next to it on the stack; when that is zero the run is right, otherwise the pool keeps up to terabytes across synchronisations (the report's threshold shows it), and the peak of the 8 x 256 MiB run (2 GiB) does not fit in an int at all.",
    "ROCm/rocm-systems#3124 (hip-tests set the 8-byte pool attributes through an int: ASAN reported it; fixed with a uint64_t)") + W1)

# wrong 2: the threshold 0 set on the device's default pool.
W2 = C
W2 = edit(W2, """    cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    err = set_attr(*pool, cudaMemPoolAttrReleaseThreshold, 0);""", """    cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    // the release threshold is the device's setting for its pool memory
    cudaMemPool_t devicePool = nullptr;
    err = cudaDeviceGetMemPool(&devicePool, device);
    if (err == cudaSuccess) err = set_attr(devicePool, cudaMemPoolAttrReleaseThreshold, 0);""")
write("pool-reuse", "wrong-threshold-zero-on-device-pool.cu", header(
    "wrong",
    "make_pool creates the program's pool but sets the release threshold 0 on the device's current pool (cudaDeviceGetMemPool), taking it for a device-wide setting.",
    "the setting lands on the device's default pool, which the program does not own and other code on the device shares (a library that raised its threshold loses its cache at every synchronisation); the program's own pool is untouched, and as a new pool's threshold is already 0 every figure printed is the same as the right program's.",
    "NVIDIA/cccl#6718 and rapidsai/rmm#2512 (changing the default pool's release threshold is visible to every user of that pool; CCCL only raises it when the user left it at 0)") + W2)

# wrong 3: held() reads the release threshold as what the pool holds.
W3 = C
W3 = edit(W3, """    // between rounds nothing is in use: all that is reserved is free to take
    const uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);
    const uint64_t used = attr(pool, cudaMemPoolAttrUsedMemCurrent);
    return reserved >= used && reserved - used >= need;""", """    // the phase told the pool to keep its peak across synchronisations:
    // that is what it holds between rounds
    return attr(pool, cudaMemPoolAttrReleaseThreshold) >= need;""")
write("pool-reuse", "wrong-held-read-from-threshold.cu", header(
    "wrong",
    "held() answers from the release threshold (what the pool may keep) instead of what it has reserved now.",
    "the threshold is a limit, not memory: right after enter_phase the pool does hold the peak, so with no TRIM every round is counted right; with TRIM, the round after the trim finds nothing reserved and must ask the driver, yet held() still says yes, so the program reports every round as reused.",
    "ROCm/rocm-systems#11690 (a pool whose reserved memory drops while its release threshold reads back pinned: the threshold is not what the pool holds), NVIDIA/cccl#6718 (a threshold of 0 caches nothing; it is a policy on release, not a reservation)") + W3)
