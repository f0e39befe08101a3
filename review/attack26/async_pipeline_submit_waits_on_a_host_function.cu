// expect: nothing in submit() waits on the host
// kind: wrong (open: the record sees no wait; round 26)
// mistake: submit() waits, before it queues an iteration, until the stream's previous iteration is done, told by a host function (cudaLaunchHostFunc) that iteration queued last, which raises a counter the host spins on: 'a stream must finish an iteration before the next is queued on it, and no synchronisation call is made'
// why it is wrong: the host waits in submit() for the GPU, once an iteration after the first round of streams: the pipeline never queues more than one iteration a stream ahead, and the host's time in submit() is the GPU's. No CUDA call waits, so neither waits_between_async_allocs nor host_waits counts it; a host function is "not a host wait (nothing counts one)" (kernels/allocstats/devices.h)
// source: own (attack26)

// A pipeline over several streams: each iteration copies its slice of the
// input to the GPU, scales it by 2, adds the scaled values up, and brings
// both back, all on one stream, with every device buffer allocated and
// freed in that stream's order. The host waits once, at the end.
#include <atomic>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// Each kernel runs on BLOCKS blocks of THREADS threads: few enough that
// the kernels of two streams fit on the GPU side by side.
const int BLOCKS = 64, THREADS = 256;
static_assert(THREADS % 32 == 0, "a block is whole warps");

// scale writes factor * in[i] to out[i]. It stands for real work: each
// block spins about 0.2 ms first, so that one stream's kernel outlasts the
// next stream's copy in and the streams' kernels can run side by side.
__global__ void scale(const float* in, float* out, int n, float factor) {
    long long t0 = clock64();
    while (clock64() - t0 < 400000) {}
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = factor * in[i];
}

// checksum writes block b's share of the sum of values to partial[b]:
// partial holds BLOCKS long longs. (The values are whole numbers, so they
// add up exactly; atomicAdd has no long long overload, but the unsigned
// one wraps around to the same bits.)
__global__ void checksum(const float* values, int n, long long* partial) {
    __shared__ unsigned long long block;
    if (threadIdx.x == 0) block = 0;
    __syncthreads();
    long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += (long long)values[i];
    atomicAdd(&block, (unsigned long long)acc);
    __syncthreads();
    if (threadIdx.x == 0) partial[blockIdx.x] = (long long)block;
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

// pinned says whether p is page-locked host memory that the runtime knows
// (cudaMallocHost, cudaHostAlloc or cudaHostRegister).
static bool pinned(const void* p) {
    cudaPointerAttributes a;
    if (p == nullptr || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

// A Pipeline runs iterations on the streams main made (non-blocking, so
// that nothing orders them but what the pipeline asks for). Iteration it
// takes n floats of the input from offset off, and gives back those
// values times 2 (scale) at the same offset of the output, and the BLOCKS
// partial sums of the scaled values (checksum) at sums() + it * BLOCKS.
// main queues every iteration with submit, then calls drain once, and only
// then reads the results.
class Pipeline {
public:
    Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations);
    ~Pipeline();
    void submit(int it, size_t off, int n);
    void drain();
    float* input() const { return in_; }
    float* output() const { return out_; }
    long long* sums() const { return sums_; }

private:
    // TODO 1: what the pipeline keeps: the streams it was given, and the
    // host's memory that main fills and reads.
    // BEGIN SOLUTION
    const cudaStream_t* streams_;
    int count_;
    float* in_ = nullptr;       // total floats, pinned
    float* out_ = nullptr;      // total floats, pinned
    long long* sums_ = nullptr; // iterations * BLOCKS long longs, pinned
    std::atomic<int> ran_[16] = {}; // iterations each stream has finished
    static void CUDART_CB ran(void* p) { static_cast<std::atomic<int>*>(p)->fetch_add(1); }
    // STUB
    // float* in_ = nullptr;
    // float* out_ = nullptr;
    // long long* sums_ = nullptr;
    // END SOLUTION
};

// TODO 2: keep the streams, and make the host's input and output (total
// floats each) and sums (iterations * BLOCKS long longs) in memory the GPU can
// copy from and to while the host goes on.
Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) {
    // BEGIN SOLUTION
    streams_ = streams;
    count_ = count;
    CHECK(cudaMallocHost(&in_, total * sizeof(float)));
    CHECK(cudaMallocHost(&out_, total * sizeof(float)));
    CHECK(cudaMallocHost(&sums_, (size_t)iterations * BLOCKS * sizeof(long long)));
    // STUB
    // (void)streams;
    // (void)count;
    // in_ = static_cast<float*>(calloc(total, sizeof(float)));
    // out_ = static_cast<float*>(calloc(total, sizeof(float)));
    // sums_ = static_cast<long long*>(calloc((size_t)iterations * BLOCKS, sizeof(long long)));
    // END SOLUTION
}

// TODO 3: queue iteration it on a stream of its own, spreading the
// iterations over every stream: its buffers on the GPU, the copy in, the
// two kernels, the two copies back and the frees, all in that stream's
// order. Nothing here may wait on the host.
void Pipeline::submit(int it, size_t off, int n) {
    // BEGIN SOLUTION
    cudaStream_t s = streams_[it % count_];
    // The stream's previous iteration must be done before this one is
    // queued behind it: wait for the host function it queued last, which
    // the driver runs once that work is done (no synchronisation call).
    while (ran_[it % count_].load() < it / count_) std::this_thread::yield();
    const size_t bytes = (size_t)n * sizeof(float);
    float* d_in = nullptr;
    float* d_out = nullptr;
    long long* d_partial = nullptr;
    CHECK(cudaMallocAsync(&d_in, bytes, s));
    CHECK(cudaMallocAsync(&d_out, bytes, s));
    CHECK(cudaMemcpyAsync(d_in, in_ + off, bytes, cudaMemcpyHostToDevice, s));
    scale<<<BLOCKS, THREADS, 0, s>>>(d_in, d_out, n, 2.0f);
    // scale was d_in's last reader: free it now, in s's order, and the
    // pool may hand its memory to the next allocation on s.
    CHECK(cudaFreeAsync(d_in, s));
    CHECK(cudaMallocAsync(&d_partial, BLOCKS * sizeof(long long), s));
    checksum<<<BLOCKS, THREADS, 0, s>>>(d_out, n, d_partial);
    CHECK(cudaMemcpyAsync(out_ + off, d_out, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, d_partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(d_out, s));
    CHECK(cudaFreeAsync(d_partial, s));
    CHECK(cudaLaunchHostFunc(s, ran, &ran_[it % count_]));
    // STUB
    // (void)it;
    // (void)off;
    // (void)n;
    // END SOLUTION
}

// TODO 4: wait until every iteration queued is done: the pipeline's only
// wait on the host.
void Pipeline::drain() {
    // BEGIN SOLUTION
    for (int i = 0; i < count_; i++) CHECK(cudaStreamSynchronize(streams_[i]));
    // STUB
    // END SOLUTION
}

// TODO 5: give the host's memory back.
Pipeline::~Pipeline() {
    // BEGIN SOLUTION
    CHECK(cudaFreeHost(in_));
    CHECK(cudaFreeHost(out_));
    CHECK(cudaFreeHost(sums_));
    // STUB
    // free(in_);
    // free(out_);
    // free(sums_);
    // END SOLUTION
}

// Usage: async_pipeline [ITERATIONS [STREAMS]] (12 iterations on 4 streams
// by default), each iteration 4 MiB of floats.
int main(int argc, char** argv) {
    const int iterations = arg(argc, argv, 1, 12, 64), streams = arg(argc, argv, 2, 4, 16), n = 1 << 20;
    const size_t total = (size_t)iterations * n;
    cudaStream_t s[16] = {};
    for (int i = 0; i < streams; i++) CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));

    float* in = nullptr;
    float* out = nullptr;
    long long* sums = nullptr;
    int right = 0, summed = 0;
    {
        Pipeline p(s, streams, total, iterations);
        in = p.input();
        out = p.output();
        sums = p.sums();
        // Whole numbers; the last value of each slice is a power of 4 of
        // its own, so that a copy one byte short changes a result.
        for (size_t i = 0; i < total; i++) in[i] = (float)((i * 7) % 1000);
        for (int it = 0; it < iterations; it++) in[(size_t)(it + 1) * n - 1] = -ldexpf(1.0f, 2 * (it % 10));
        memset(out, 0xff, total * sizeof(float));
        memset(sums, 0xff, (size_t)iterations * BLOCKS * sizeof(long long));
        printf("host buffers pinned: %s\n", pinned(in) && pinned(out) && pinned(sums) ? "yes" : "no");

        for (int it = 0; it < iterations; it++) p.submit(it, (size_t)it * n, n);
        CHECK(cudaGetLastError());
        p.drain();

        // The last iteration first: it is the last to finish, so a drain
        // that did not wait shows at once.
        for (int it = iterations - 1; it >= 0; it--) {
            bool ok = true;
            long long want = 0, got = 0;
            for (size_t i = (size_t)it * n; i < (size_t)(it + 1) * n; i++) {
                ok = ok && out[i] == 2.0f * in[i];
                want += (long long)(2.0f * in[i]);
            }
            for (int b = 0; b < BLOCKS; b++) got += sums[(size_t)it * BLOCKS + b];
            right += ok;
            summed += got == want;
        }
        printf("%d iterations on %d streams: %d of %d results right, %d of %d checksums right\n",
               iterations, streams, right, iterations, summed, iterations);
    }
    printf("host buffers given back: %s\n", !pinned(in) && !pinned(out) && !pinned(sums) ? "yes" : "no");
    for (int i = 0; i < streams; i++) CHECK(cudaStreamDestroy(s[i]));
    return right == iterations && summed == iterations ? 0 : 1;
}
