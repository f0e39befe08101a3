// kind: wrong
// mistake: measure_peak empties the device's default pool (cudaDeviceGetDefaultMemPool, then cudaMemPoolTrimTo(0)) instead of its own, 'a measure starts from an empty device'
// why it is wrong: the record only: every printed line is right: its own pool is empty anyway when it measures (the 0 threshold written just before, and the previous round's synchronisation gave everything back); but the program trims a pool it does not own: what the device's default pool keeps for other code in the process (a library's cudaMallocAsync with its threshold raised) is given back under it, and the record shows a trim of the default pool
// source: related: rapidsai/rmm#676 (a resource that trims the device's default pool, which every cudaMallocAsync in the process shares)
// A pool of our own and its policy across two phases of different sizes:
// keep what a phase's rounds need across synchronisations, give back the
// rest at the phase boundary, and report the pool's high-water marks.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cinttypes>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

static const uint64_t MiB = 1 << 20;

// TODO 1: attr is the pool's value of attribute a, one of the uint64_t
// ones (the marks, the threshold, what it holds now), asked of the pool;
// 0 when the pool cannot say.
static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a) {
    uint64_t v = 0;
    if (pool == nullptr || cudaMemPoolGetAttribute(pool, a, &v) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

// Every figure of the pool is read the same way, all five at once: what
// it reserves now and at most, what is in use now and at most, and its
// release threshold.
enum Figure { RESERVED_NOW, RESERVED_HIGH, USED_NOW, USED_HIGH, THRESHOLD, FIGURES };
static const cudaMemPoolAttr kFigureAttr[FIGURES] = {cudaMemPoolAttrReservedMemCurrent, cudaMemPoolAttrReservedMemHigh, cudaMemPoolAttrUsedMemCurrent, cudaMemPoolAttrUsedMemHigh, cudaMemPoolAttrReleaseThreshold};
struct Figures {
    uint64_t v[FIGURES];
};
static Figures figures(cudaMemPool_t pool) {
    Figures f;
    for (int i = 0; i < FIGURES; i++) f.v[i] = attr(pool, kFigureAttr[i]);
    return f;
}

// set writes a 64-bit attribute of the pool.
static cudaError_t set(cudaMemPool_t pool, cudaMemPoolAttr a, uint64_t v) {
    return cudaMemPoolSetAttribute(pool, a, &v);
}

// restart_marks starts both high-water marks again from what the pool
// holds and has in use now.
static cudaError_t restart_marks(cudaMemPool_t pool) {
    const cudaError_t err = set(pool, cudaMemPoolAttrUsedMemHigh, 0);
    if (err != cudaSuccess) return err;
    return set(pool, cudaMemPoolAttrReservedMemHigh, 0);
}

// TODO 2: make_pool creates a pool of the device's own memory, apart from
// the device's default pool, as it comes: its release threshold 0, so
// that it holds nothing across a synchronisation until a phase says so.
static cudaError_t make_pool(int device, cudaMemPool_t* pool) {
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    const cudaError_t err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    return set(*pool, cudaMemPoolAttrReleaseThreshold, 0);
}

// TODO 3: held says whether the pool holds at least need bytes reserved
// now, so that a round needing them takes them without asking the driver.
static bool held(cudaMemPool_t pool, uint64_t need) {
    const Figures f = figures(pool);
    const uint64_t spare = f.v[RESERVED_NOW] > f.v[USED_NOW] ? f.v[RESERVED_NOW] - f.v[USED_NOW] : 0;
    return spare >= need;
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

// TODO 4: measure_peak sets *peak to the bytes the pool reserves for one
// round of the phase, measured with the pool's own attributes (a
// high-water mark counts since it was last reset, and from what the pool
// already holds). Run the round with run_round.
static int measure_peak(cudaMemPool_t pool, cudaStream_t s, const Phase& ph, uint64_t* peak) {
    *peak = 0;
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));
    cudaMemPool_t dflt = nullptr;
    CHECK(cudaDeviceGetDefaultMemPool(&dflt, 0));
    CHECK(cudaMemPoolTrimTo(dflt, 0));
    CHECK(restart_marks(pool));
    if (run_round(pool, s, ph, 0)) return 1;
    *peak = figures(pool).v[RESERVED_HIGH];
    return 0;
}

// TODO 5: enter_phase sets the pool's policy for a phase whose rounds
// reserve peak bytes: the pool keeps that much across synchronisations
// and no more, and what it holds beyond it goes back to the driver now,
// before the phase's first round. From here on the pool's high-water
// marks must count this phase alone.
static int enter_phase(cudaMemPool_t pool, uint64_t peak) {
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(restart_marks(pool));
    return 0;
}

// TODO 6: report prints, for the phase just run, the pool's used and
// reserved high-water marks and its release threshold, in MiB, as
//   phase NAME: used high U MiB, reserved high R MiB, threshold T MiB
static int report(cudaMemPool_t pool, const char* name) {
    const Figures f = figures(pool);
    printf("phase %s: used high %" PRIu64 " MiB, reserved high %" PRIu64 " MiB, threshold %" PRIu64 " MiB\n", name,
           f.v[USED_HIGH] / MiB, f.v[RESERVED_HIGH] / MiB, f.v[THRESHOLD] / MiB);
    return 0;
}

// TODO 7: the work is done: the pool gives back everything it keeps.
static int finish(cudaMemPool_t pool) {
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}

// Usage: pool_reuse [ROUNDS] [WIDE] [MIB] [TRIM] (6 rounds a phase, and 4
// buffers of 32 MiB at once in the wide phase, by default; MIB, up to
// 1024, sets the buffers' size, which the pool may round up; TRIM, when
// not 0, is a round of each phase before which the program trims the pool
// to nothing, as another part of a larger program might, or, one past the
// last round, the phase's report).
int main(int argc, char** argv) {
    const int device = 0, rounds = arg(argc, argv, 1, 6, 1, 1000), wide = arg(argc, argv, 2, 4, 2, 8);
    const uint64_t bytes = (uint64_t)arg(argc, argv, 3, 32, 1, 1024) * MiB;
    const int trim = arg(argc, argv, 4, 0, 0, 1000);
    // Past 4 GiB a size kept in 32 bits has lost its high bits.
    if (wide * bytes > (4ull << 30)) printf("the wide phase asks for %" PRIu64 " MiB at once, past 4 GiB\n", wide * bytes / MiB);
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
