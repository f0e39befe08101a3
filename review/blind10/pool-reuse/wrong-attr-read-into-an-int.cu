// kind: wrong (shows only where a figure reaches 2 GiB, WIDE 8 and MIB 256:
//   the peak reads negative and prints as a huge number; below that only the
//   write of 8 bytes into a 4-byte int)
// mistake: attr reads the attribute into an int, as the reuse policies are
//   read, and returns it as uint64_t.
// why it is wrong: the uint64_t attributes are 8 bytes: the call writes 8
//   bytes into a 4-byte variable, and a value of 2^31 or more comes back
//   truncated to a negative int, sign-extended to nearly 2^64.
// source: own; the exercise's own hint ("read into the wrong type"), the
//   lesson's "Pitfall: uint64_t needs its header, and its own format"
// A pool of our own and its policy across two phases of different sizes:
// keep what a phase's rounds need across synchronisations, give back the
// rest at the phase boundary, and report the pool's high-water marks.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cinttypes>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

static const uint64_t MiB = 1 << 20;

// attr is the pool's value of attribute a, one of the uint64_t ones (the
// marks, the threshold, what it holds now), asked of the pool; 0 when the
// pool cannot say.
static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    int v = 0;
    if (cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

// put sets one of the pool's uint64_t attributes.
static cudaError_t put(cudaMemPool_t pool, cudaMemPoolAttr a, uint64_t v) {
    return cudaMemPoolSetAttribute(pool, a, &v);
}

// restart_marks starts both high-water marks again from what the pool
// counts now (a mark is reset by writing 0 to it).
static cudaError_t restart_marks(cudaMemPool_t pool) {
    cudaError_t err = put(pool, cudaMemPoolAttrUsedMemHigh, 0);
    return err != cudaSuccess ? err : put(pool, cudaMemPoolAttrReservedMemHigh, 0);
}

// make_pool creates a pool of the device's own memory, apart from the
// device's default pool, as it comes (its release threshold 0).
static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    return cudaMemPoolCreate(pool, &props);
}

// held says whether the pool holds at least need bytes reserved now, and
// free: between rounds nothing of the pool's is in use, but it is asked
// anyway, so that memory a round holds is not counted as found.
static bool held(cudaMemPool_t pool, uint64_t need) {
    const uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);
    const uint64_t used = attr(pool, cudaMemPoolAttrUsedMemCurrent);
    return reserved >= used && reserved - used >= need;
}

// arg is the program's argument i as a number from lo to hi, or def when
// it is not given; the course's checks run it with other inputs too.
static int arg(int argc, char** argv, int i, int def, int lo, int hi) {
    if (argc <= i) return def;
    int v = atoi(argv[i]);
    if (v < lo || v > hi) {
        fprintf(stderr, "argument %d is %s: give a number from %d to %d\n", i, argv[i], lo, hi);
        exit(2);
    }
    return v;
}

// A phase's round holds `buffers` buffers of `bytes` each live at once.
struct Phase {
    const char* name;
    int buffers;
    size_t bytes;
};

// run_round is one round of a phase: allocate its buffers from the pool
// on s, clear them, free them, and wait for the stream.
static int run_round(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, int r) {
    void* p[8] = {};
    for (int b = 0; b < ph.buffers; b++) CHECK(cudaMallocFromPoolAsync(&p[b], ph.bytes, pool, s));
    for (int b = 0; b < ph.buffers; b++) CHECK(cudaMemsetAsync(p[b], r + b, ph.bytes, s));
    for (int b = 0; b < ph.buffers; b++) CHECK(cudaFreeAsync(p[b], s));
    CHECK(cudaStreamSynchronize(s));
    return 0;
}

// measure_peak sets *peak to the bytes the pool reserves for one round of
// the phase. My design: the pool is emptied first (a trim to 0 acts at
// once), so that the reserved mark, restarted from what the pool holds,
// starts at 0; one round; the peak is the reserved mark. The round's own
// synchronisation hands the memory back, the threshold still being what
// it was (0 while measuring), and the trim after it makes sure.
static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(restart_marks(pool));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}

// enter_phase: give back now what the pool holds beyond the peak (the trim
// acts at once; a threshold only at the next synchronisation), then let it
// keep the peak across synchronisations, then restart both marks from
// what it holds after the trim.
static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(restart_marks(pool));
    return 0;
}

// report prints the phase's marks and the threshold, read from the pool.
static int report(cudaMemPool_t pool, const char* name) {
    printf("phase %s: used high %" PRIu64 " MiB, reserved high %" PRIu64 " MiB, threshold %" PRIu64 " MiB\n", name,
           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB,
           attr(pool, cudaMemPoolAttrReleaseThreshold) / MiB);
    return 0;
}

// finish: the pool keeps nothing from here on, and gives back now what it
// holds.
static int finish(cudaMemPool_t pool) {
    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, 0));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}

// Usage: pool_reuse [ROUNDS] [WIDE] [MIB] [TRIM] (6 rounds a phase, and 4
// buffers of 32 MiB at once in the wide phase, by default; MIB sets the
// buffers' size, which the pool may round up; TRIM, when not 0, is a
// round of each phase before which the program trims the pool to
// nothing, as another part of a larger program might, or, one past the
// last round, the phase's report).
int main(int argc, char** argv) {
    const int device = 0, rounds = arg(argc, argv, 1, 6, 1, 1000), wide = arg(argc, argv, 2, 4, 2, 8);
    const uint64_t bytes = (uint64_t)arg(argc, argv, 3, 32, 1, 256) * MiB;
    const int trim = arg(argc, argv, 4, 0, 0, 1000);
    CHECK(cudaSetDevice(device));
    cudaMemPool_t pool = nullptr;
    CHECK(make_pool(device, &pool));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    const Phase phases[2] = {{"wide", wide, bytes}, {"narrow", 1, bytes}};
    uint64_t peaks[2];
    for (int i = 0; i < 2; i++) {
        if (measure_peak(pool, s, phases[i], &peaks[i])) return 1;
        printf("measured %s: one round reserves %" PRIu64 " MiB\n", phases[i].name, peaks[i] / MiB);
    }
    for (int i = 0; i < 2; i++) {
        const Phase& ph = phases[i];
        const uint64_t need = ph.buffers * ph.bytes;
        if (enter_phase(pool, peaks[i])) return 1;
        printf("entering %s: reserved %" PRIu64 " MiB, its rounds reserve %" PRIu64 " MiB\n", ph.name,
               attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB, peaks[i] / MiB);
        int reused = 0;
        for (int r = 0; r < rounds; r++) {
            if (trim > 0 && r + 1 == trim) CHECK(cudaMemPoolTrimTo(pool, 0));
            if (held(pool, need)) reused++;
            if (run_round(pool, s, ph, r)) return 1;
        }
        printf("%s: %d of %d rounds found their %" PRIu64 " MiB already reserved\n", ph.name, reused, rounds,
               need / MiB);
        if (trim > 0 && trim <= rounds) printf("%s: the pool was trimmed to nothing before round %d\n", ph.name, trim);
        // Trimmed before the report: what the pool holds now is nothing,
        // what it held at its most (its high-water mark) is still the peak.
        if (trim == rounds + 1) {
            CHECK(cudaMemPoolTrimTo(pool, 0));
            printf("%s: the pool was trimmed to nothing before the report\n", ph.name);
        }
        if (report(pool, ph.name)) return 1;
    }
    if (finish(pool)) return 1;
    printf("after the trim: reserved %" PRIu64 " MiB\n", attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaMemPoolDestroy(pool));
    return 0;
}
