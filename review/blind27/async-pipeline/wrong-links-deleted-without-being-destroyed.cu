// kind: wrong
// mistake: the destructor deletes the array of link events without destroying them (the cudaEventDestroy loop left out), 'delete[] frees the events'
// why it is wrong: the record only (a leak): every printed line is right; delete[] frees only the array of handles: the events themselves belong to the driver until cudaEventDestroy, so every pipeline leaks one event a stream (4 on the default run)
// source: related: tromp/cuckoo#69 (events created with cudaEventCreate and never destroyed)
// A pipeline over several streams: each iteration copies its slice of the
// input to the GPU, scales it by 2, adds the scaled values up, and brings
// both back, all on one stream, with every device buffer allocated and
// freed in that stream's order. The host waits once, at the end.
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
    // The host's three buffers are carved from ONE region of ordinary
    // memory, page-locked once with cudaHostRegister. The drain joins the
    // streams in a chain, one link event per stream.
    const cudaStream_t* streams_ = nullptr;
    int count_ = 0;
    int iterations_ = 0;
    void* region_ = nullptr;
    size_t regionBytes_ = 0;
    cudaEvent_t* link_ = nullptr;
    float* in_ = nullptr;
    float* out_ = nullptr;
    long long* sums_ = nullptr;
};

// TODO 2: keep the streams, and make the host's input and output (total
// floats each) and sums (iterations * BLOCKS long longs) in memory the GPU can
// copy from and to while the host goes on.
Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) {
    streams_ = streams;
    count_ = count;
    iterations_ = iterations;
    // The input, then the output, then the sums at the next 256-byte
    // boundary, the whole rounded up to whole 4 KiB pages.
    const size_t sumsAt = (2 * total * sizeof(float) + 255) / 256 * 256;
    regionBytes_ = (sumsAt + (size_t)iterations * BLOCKS * sizeof(long long) + 4095) / 4096 * 4096;
    region_ = aligned_alloc(4096, regionBytes_);
    if (region_ == nullptr) {
        fprintf(stderr, "no host memory for %zu bytes\n", regionBytes_);
        exit(1);
    }
    memset(region_, 0, regionBytes_);
    CHECK(cudaHostRegister(region_, regionBytes_, cudaHostRegisterDefault));
    char* at = static_cast<char*>(region_);
    in_ = reinterpret_cast<float*>(at);
    out_ = reinterpret_cast<float*>(at + total * sizeof(float));
    sums_ = reinterpret_cast<long long*>(at + sumsAt);

    link_ = new cudaEvent_t[count_];
    for (int i = 0; i < count_; i++) CHECK(cudaEventCreateWithFlags(&link_[i], cudaEventDisableTiming));
}

// TODO 3: queue iteration it on a stream of its own, spreading the
// iterations over every stream: its buffers on the GPU, the copy in, the
// two kernels, the two copies back and the frees, all in that stream's
// order. Nothing here may wait on the host.
void Pipeline::submit(int it, size_t off, int n) {
    const cudaStream_t s = streams_[it % count_];
    const size_t bytes = (size_t)n * sizeof(float);
    float* values = nullptr;
    long long* partial = nullptr;
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&values), bytes, s));
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&partial), BLOCKS * sizeof(long long), s));
    CHECK(cudaMemcpyAsync(values, in_ + off, bytes, cudaMemcpyHostToDevice, s));
    scale<<<BLOCKS, THREADS, 0, s>>>(values, values, n, 2.0f);
    checksum<<<BLOCKS, THREADS, 0, s>>>(values, n, partial);
    CHECK(cudaMemcpyAsync(out_ + off, values, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(values, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(partial, s));
}

// TODO 4: wait until every iteration queued is done: the pipeline's only
// wait on the host.
void Pipeline::drain() {
    // A chain: stream i waits for the link of stream i - 1, then records
    // its own, so the last link comes after every stream's work.
    for (int i = 0; i < count_; i++) {
        if (i > 0) CHECK(cudaStreamWaitEvent(streams_[i], link_[i - 1], 0));
        CHECK(cudaEventRecord(link_[i], streams_[i]));
    }
    CHECK(cudaEventSynchronize(link_[count_ - 1]));
}

// TODO 5: give the host's memory back.
Pipeline::~Pipeline() {
    delete[] link_;
    CHECK(cudaHostUnregister(region_));
    free(region_);
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
