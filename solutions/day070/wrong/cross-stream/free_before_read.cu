// expect: a kernel or copy was queued after the free of the buffer it reads
// raw is freed on work_ just before square, its reader, is queued there: the free comes first in work_'s order.
// A pipeline of chunks over four streams: the load stream generates a
// chunk's values, the work stream squares them, the reduce stream adds the
// squares up, and the copy stream brings the sums back to the host. Every
// buffer comes from cudaMallocAsync on the stream of the stage that writes
// it, is read on the next stage's stream, and is freed once nothing can
// still read it. Events order the hand-offs; the host waits only at the end.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cinttypes>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

// Each kernel runs on a few blocks, so that the stages of different chunks
// can run side by side, and spins about 0.1 ms first, standing for real
// work, so that they have time to.
const int BLOCKS = 8, THREADS = 256;

__device__ void work_a_while() {
    long long t0 = clock64();
    while (clock64() - t0 < 200000) {}
}

// generate writes chunk's values, 0 to 4, to raw.
__global__ void generate(float* raw, int n, int chunk) {
    work_a_while();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        raw[i] = (float)((i + chunk) % 5);
}

// square writes the square of each value of raw to squared.
__global__ void square(const float* raw, float* squared, int n) {
    work_a_while();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        squared[i] = raw[i] * raw[i];
}

// sum writes block b's share of the sum of squared to partial[b]: partial
// holds BLOCKS floats. (Every share is a whole number below 2^24, so the
// floats add up exactly.)
__global__ void sum(const float* squared, int n, float* partial) {
    __shared__ float block;
    if (threadIdx.x == 0) block = 0.0f;
    __syncthreads();
    work_a_while();
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += squared[i];
    atomicAdd(&block, acc);
    __syncthreads();
    if (threadIdx.x == 0) partial[blockIdx.x] = block;
}

// arg is the program's argument i as a number from 1 to hi, or def when
// it is not given; the course's checks run it with other inputs too.
static int arg(int argc, char** argv, int i, int def, int hi) {
    if (argc <= i) return def;
    int v = atoi(argv[i]);
    if (v < 1 || v > hi) {
        fprintf(stderr, "argument %d is %s: give a number from 1 to %d\n", i, argv[i], hi);
        exit(2);
    }
    return v;
}

// EVENTS is how many events main makes for each chunk.
const int EVENTS = 4;

// A chunk on its way through the stages. main sets index, n, result and
// event before the chunk's first stage.
struct Chunk {
    int index;                  // the chunk's number, from 0
    int n;                      // how many values it has
    float* result;              // BLOCKS floats of pinned host memory: where its partial sums come back
    cudaEvent_t event[EVENTS];  // made by main for this chunk: use as many as your hand-offs need
    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above).
    float* raw = nullptr;       // generate's values: n floats, made on the load stream
    float* squared = nullptr;   // square's: n floats, made on the work stream
    float* partial = nullptr;   // sum's: BLOCKS floats, made on the reduce stream
};

// The pipeline's four streams (non-blocking, made by main) and its stages.
// main queues a chunk's four stages in order, then the next chunk's, and
// waits on the host only after every chunk is queued: no stage may wait on
// the host (no cudaStreamSynchronize, cudaEventSynchronize,
// cudaDeviceSynchronize or cudaMemcpy), so that the stages of different
// chunks can run at the same time.
struct Pipeline {
    cudaStream_t load_, work_, reduce_, copy_;
    int stage_load(Chunk& ch);
    int stage_work(Chunk& ch);
    int stage_reduce(Chunk& ch);
    int stage_copy(Chunk& ch);
};

// TODO 2: stage 1, on load_: the chunk's values, from generate, in a
// buffer of its own allocated in stream order.
int Pipeline::stage_load(Chunk& ch) {
    CHECK(cudaMallocAsync(&ch.raw, ch.n * sizeof(float), load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.raw, ch.n, ch.index);
    CHECK(cudaEventRecord(ch.event[0], load_));
    return 0;
}

// TODO 3: stage 2, on work_: square the values into a buffer of its own.
// square must not read them before generate has written them, and once
// square has read them nothing needs them any more.
int Pipeline::stage_work(Chunk& ch) {
    CHECK(cudaStreamWaitEvent(work_, ch.event[0], 0));
    CHECK(cudaMallocAsync(&ch.squared, ch.n * sizeof(float), work_));
    CHECK(cudaFreeAsync(ch.raw, work_));
    square<<<BLOCKS, THREADS, 0, work_>>>(ch.raw, ch.squared, ch.n);
    CHECK(cudaEventRecord(ch.event[1], work_));
    return 0;
}

// TODO 4: stage 3, on reduce_: sum the squares into BLOCKS partial sums,
// in a buffer of its own; then the squares are not needed any more.
int Pipeline::stage_reduce(Chunk& ch) {
    CHECK(cudaStreamWaitEvent(reduce_, ch.event[1], 0));
    CHECK(cudaMallocAsync(&ch.partial, BLOCKS * sizeof(float), reduce_));
    sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squared, ch.n, ch.partial);
    CHECK(cudaFreeAsync(ch.squared, reduce_));
    CHECK(cudaEventRecord(ch.event[2], reduce_));
    return 0;
}

// TODO 5: stage 4, on copy_: the partial sums to ch.result on the host
// (main reads them after its wait at the end); then nothing on the GPU
// is needed any more.
int Pipeline::stage_copy(Chunk& ch) {
    CHECK(cudaStreamWaitEvent(copy_, ch.event[2], 0));
    CHECK(cudaMemcpyAsync(ch.result, ch.partial, BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partial, copy_));
    return 0;
}

// Usage: cross_stream [CHUNKS] [MIB] (8 chunks of 4 MiB by default).
int main(int argc, char** argv) {
    const int chunks = arg(argc, argv, 1, 8, 64), mib = arg(argc, argv, 2, 4, 8);
    const int n = mib << 18;   // floats in mib MiB
    Pipeline p;
    CHECK(cudaStreamCreateWithFlags(&p.load_, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&p.work_, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&p.reduce_, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&p.copy_, cudaStreamNonBlocking));
    float* results = nullptr;
    CHECK(cudaMallocHost(&results, chunks * BLOCKS * sizeof(float)));
    memset(results, 0, chunks * BLOCKS * sizeof(float));
    static Chunk ch[64];
    for (int c = 0; c < chunks; c++) {
        ch[c].index = c;
        ch[c].n = n;
        ch[c].result = results + c * BLOCKS;
        for (int e = 0; e < EVENTS; e++) CHECK(cudaEventCreateWithFlags(&ch[c].event[e], cudaEventDisableTiming));
    }

    for (int c = 0; c < chunks; c++) {
        if (p.stage_load(ch[c]) || p.stage_work(ch[c]) || p.stage_reduce(ch[c]) || p.stage_copy(ch[c])) return 1;
    }
    CHECK(cudaGetLastError());
    // The host's only waits: every stage of every chunk is queued.
    CHECK(cudaStreamSynchronize(p.load_));
    CHECK(cudaStreamSynchronize(p.work_));
    CHECK(cudaStreamSynchronize(p.reduce_));
    CHECK(cudaStreamSynchronize(p.copy_));

    int right = 0;
    for (int c = 0; c < chunks; c++) {
        uint64_t got = 0, want = 0;
        for (int b = 0; b < BLOCKS; b++) got += (uint64_t)ch[c].result[b];
        for (int i = 0; i < n; i++) want += (uint64_t)(((i + c) % 5) * ((i + c) % 5));
        right += got == want;
        printf("chunk %d: sum of squares %" PRIu64 " (expected %" PRIu64 ")\n", c, got, want);
    }
    printf("%d of %d chunks right (%d MiB each, 4 streams)\n", right, chunks, mib);
    for (int c = 0; c < chunks; c++)
        for (int e = 0; e < EVENTS; e++) CHECK(cudaEventDestroy(ch[c].event[e]));
    CHECK(cudaFreeHost(results));
    CHECK(cudaStreamDestroy(p.load_));
    CHECK(cudaStreamDestroy(p.work_));
    CHECK(cudaStreamDestroy(p.reduce_));
    CHECK(cudaStreamDestroy(p.copy_));
    return 0;
}
