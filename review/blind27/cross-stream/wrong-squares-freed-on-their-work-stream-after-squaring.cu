// kind: wrong
// mistake: each half's squares are freed on their own work stream right after square is queued (the free moved there from stage_reduce), 'a buffer goes back on the stream that made it once its kernel is queued'
// why it is wrong: a race, and the record: the squares have a reader on another stream, reduce_'s sum, which waits for the SQUARED event recorded after the free: freed in work_[h]'s order they are free before that sum runs, and the next chunk's squares on the same stream (allocated in that stream's order, after the free) may be given the same memory and written while reduce_ still sums the previous chunk's: sums wrong by timing; the record shows every chunk's squares read after their free
// source: related: NVIDIA/cuCascade#186 (buffers freed on their allocating stream, unordered against reads still running on the consumer's stream, recycled under the reader)
// A pipeline of chunks over five streams: the load stream generates a
// chunk's values; two work streams each square half of them (one buffer,
// two readers: a fan-out); the reduce stream waits for both (a fan-in) and
// adds the squares up; the copy stream brings the sums back to the host.
// Every buffer comes from cudaMallocAsync on the stream of the stage that
// writes it, is read on other streams, and is freed once nothing can still
// read it. The pipeline's events are made once and recorded again for
// every chunk; they order the hand-offs, and the host waits only at the end.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cinttypes>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

// Each kernel runs on a few blocks, so that the stages of different chunks
// (and the two halves of one) can run side by side, and spins about 0.1 ms
// first, standing for real work, so that they have time to.
const int BLOCKS = 8, THREADS = 256;

// HALVES is how many work streams share a chunk: half h squares the
// values from h * n / 2 on.
const int HALVES = 2;

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

// square writes the square of each of the n values at raw to squared.
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

// A chunk on its way through the stages. main sets index, n and result
// before the chunk's first stage.
struct Chunk {
    int index;      // the chunk's number, from 0
    int n;          // how many values it has (even)
    float* result;  // HALVES * BLOCKS floats of pinned host memory: where its partial sums come back, half 0's first
    // TODO 1: what the chunk holds on the GPU between its stages: a
    // buffer for each kernel's output (see the kernels above; each half
    // has a square of its own).
    float* values;             // generate's, on load_
    float* squares[HALVES];    // each half's square, on its work stream
    float* partial;            // the sums, HALVES * BLOCKS, on reduce_
};

// The pipeline's five streams (non-blocking, made by main), its events
// and its stages. main calls start once, then queues chunk 0's stages in
// the order load, work 0, work 1, reduce, copy, then chunk 1's, and so
// on; it waits on the host only after every chunk is queued, then calls
// finish. No stage may wait on the host (no cudaStreamSynchronize,
// cudaEventSynchronize, cudaDeviceSynchronize or cudaMemcpy), so that the
// stages of different chunks, and the two halves of one, can run at the
// same time. Each stage returns 0, or 1 when a CUDA call failed.
struct Pipeline {
    cudaStream_t load_, work_[HALVES], reduce_, copy_;
    // TODO 2: the events the stages record and wait for. start makes
    // them, once; the stages record them again for every chunk (a stage
    // makes and destroys none); finish destroys them.
    // One array: LOADED, then one SQUARED event a half, then REDUCED.
    static const int LOADED = 0, REDUCED = HALVES + 1, EVENTS = HALVES + 2;
    static int squared(int half) { return 1 + half; }
    cudaEvent_t ev_[EVENTS];
    int start();
    int stage_load(Chunk& ch);
    int stage_work(Chunk& ch, int half);
    int stage_reduce(Chunk& ch);
    int stage_copy(Chunk& ch);
    int finish();
};

// TODO 3: make the pipeline's events. They only order streams: nothing
// reads a time from them.
int Pipeline::start() {
    for (int e = 0; e < EVENTS; e++) CHECK(cudaEventCreateWithFlags(&ev_[e], cudaEventDisableTiming));
    return 0;
}

// TODO 4: stage 1, on load_: the chunk's values, from generate, in a
// buffer of its own allocated in stream order.
int Pipeline::stage_load(Chunk& ch) {
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.values), (size_t)ch.n * sizeof(float), load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(ev_[LOADED], load_));
    return 0;
}

// TODO 5: stage 2, on work_[half]: square half of the values into a
// buffer of its own. square must not read them before generate has
// written them. The values have two readers, one on each work stream:
// they may be freed only where both reads are over, on a stream whose
// order includes them both (main queues half 0 before half 1).
int Pipeline::stage_work(Chunk& ch, int half) {
    const int m = ch.n / HALVES;
    cudaStream_t w = work_[half];
    CHECK(cudaStreamWaitEvent(w, ev_[LOADED], 0));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.squares[half]), (size_t)m * sizeof(float), w));
    square<<<BLOCKS, THREADS, 0, w>>>(ch.values + (size_t)half * m, ch.squares[half], m);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(ch.squares[half], w));
    CHECK(cudaEventRecord(ev_[squared(half)], w));
    return 0;
}

// TODO 6: stage 3, on reduce_: sum each half's squares into BLOCKS
// partial sums of a buffer of its own (half 0's first); then the squares
// are not needed any more.
int Pipeline::stage_reduce(Chunk& ch) {
    // The waits are interleaved with the sums: half 0 is summed while
    // half 1 may still be squared. Each half's squares go back right after
    // their sum; the values once reduce_ has waited for both squares, the
    // last of their two readers.
    const int m = ch.n / HALVES;
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), (size_t)HALVES * BLOCKS * sizeof(float), reduce_));
    for (int h = 0; h < HALVES; h++) {
        CHECK(cudaStreamWaitEvent(reduce_, ev_[squared(h)], 0));
        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaFreeAsync(ch.values, reduce_));
    CHECK(cudaEventRecord(ev_[REDUCED], reduce_));
    return 0;
}

// TODO 7: stage 4, on copy_: the partial sums to ch.result on the host
// (main reads them after its waits at the end); then nothing on the GPU
// is needed any more.
int Pipeline::stage_copy(Chunk& ch) {
    CHECK(cudaStreamWaitEvent(copy_, ev_[REDUCED], 0));
    CHECK(cudaMemcpyAsync(ch.result, ch.partial, (size_t)HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partial, copy_));
    return 0;
}

// TODO 8: destroy the pipeline's events. main calls finish after its
// waits at the end; it needs no wait of its own.
int Pipeline::finish() {
    for (int e = 0; e < EVENTS; e++) CHECK(cudaEventDestroy(ev_[e]));
    return 0;
}

// Usage: cross_stream [CHUNKS] [MIB] (8 chunks of 4 MiB by default).
int main(int argc, char** argv) {
    const int chunks = arg(argc, argv, 1, 8, 64), mib = arg(argc, argv, 2, 4, 8);
    const int n = mib << 18;   // floats in mib MiB
    Pipeline p{};
    CHECK(cudaStreamCreateWithFlags(&p.load_, cudaStreamNonBlocking));
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamCreateWithFlags(&p.work_[h], cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&p.reduce_, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&p.copy_, cudaStreamNonBlocking));
    float* results = nullptr;
    CHECK(cudaMallocHost(&results, chunks * HALVES * BLOCKS * sizeof(float)));
    memset(results, 0, chunks * HALVES * BLOCKS * sizeof(float));
    static Chunk ch[64];
    for (int c = 0; c < chunks; c++) {
        ch[c].index = c;
        ch[c].n = n;
        ch[c].result = results + c * HALVES * BLOCKS;
    }

    if (p.start()) return 1;
    for (int c = 0; c < chunks; c++) {
        if (p.stage_load(ch[c]) || p.stage_work(ch[c], 0) || p.stage_work(ch[c], 1) ||
            p.stage_reduce(ch[c]) || p.stage_copy(ch[c])) return 1;
    }
    CHECK(cudaGetLastError());
    // The host's only waits: every stage of every chunk is queued.
    CHECK(cudaStreamSynchronize(p.load_));
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamSynchronize(p.work_[h]));
    CHECK(cudaStreamSynchronize(p.reduce_));
    CHECK(cudaStreamSynchronize(p.copy_));
    if (p.finish()) return 1;

    int right = 0;
    for (int c = 0; c < chunks; c++) {
        uint64_t got[HALVES] = {0}, want[HALVES] = {0};
        for (int h = 0; h < HALVES; h++) {
            for (int b = 0; b < BLOCKS; b++) got[h] += (uint64_t)ch[c].result[h * BLOCKS + b];
            for (int i = h * (n / HALVES); i < (h + 1) * (n / HALVES); i++)
                want[h] += (uint64_t)(((i + c) % 5) * ((i + c) % 5));
        }
        right += got[0] == want[0] && got[1] == want[1];
        printf("chunk %d: sums of squares %" PRIu64 " + %" PRIu64 " (expected %" PRIu64 " + %" PRIu64 ")\n",
               c, got[0], got[1], want[0], want[1]);
    }
    printf("%d of %d chunks right (%d MiB each, 5 streams)\n", right, chunks, mib);
    CHECK(cudaFreeHost(results));
    CHECK(cudaStreamDestroy(p.load_));
    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamDestroy(p.work_[h]));
    CHECK(cudaStreamDestroy(p.reduce_));
    CHECK(cudaStreamDestroy(p.copy_));
    return 0;
}
