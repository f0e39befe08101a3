// Memory resources in the style of RMM, in plain CUDA C++: an interface,
// a resource over cudaMallocAsync, and a pool resource over any upstream
// whose blocks can be freed on one stream and reused on another.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// Every resource allocates and frees in stream order: the memory may be
// used by work queued on `stream` after allocate, and is free for others
// once the work queued on `stream` before deallocate is done.
class memory_resource {
public:
    virtual ~memory_resource() = default;
    void* allocate(size_t bytes, cudaStream_t stream) { return do_allocate(bytes, stream); }
    void deallocate(void* p, size_t bytes, cudaStream_t stream) { do_deallocate(p, bytes, stream); }
private:
    virtual void* do_allocate(size_t bytes, cudaStream_t stream) = 0;
    virtual void do_deallocate(void* p, size_t bytes, cudaStream_t stream) = 0;
};

// The device's own stream-ordered allocator.
class async_resource : public memory_resource {
    void* do_allocate(size_t bytes, cudaStream_t stream) override {
        void* p = nullptr;
        CHECK(cudaMallocAsync(&p, bytes, stream));
        return p;
    }
    void do_deallocate(void* p, size_t, cudaStream_t stream) override { CHECK(cudaFreeAsync(p, stream)); }
};

// A pool over an upstream resource: one chunk taken up front, cut into
// blocks of a fixed size. A freed block remembers the stream it was freed
// on and an event recorded there, so that another stream can reuse it
// only after that stream's work on it is done.
class pool_resource : public memory_resource {
public:
    pool_resource(memory_resource* upstream, size_t block, int blocks, cudaStream_t stream)
        : upstream_(upstream), block_(block), size_(block * blocks), stream_(stream) {
        chunk_ = static_cast<char*>(upstream_->allocate(size_, stream_));
        CHECK(cudaStreamSynchronize(stream_));   // the chunk is ready for every stream
        for (int i = blocks - 1; i >= 0; i--) {
            Free f{chunk_ + i * block_, stream_, nullptr};
            CHECK(cudaEventCreateWithFlags(&f.freed, cudaEventDisableTiming));
            free_.push_back(f);
        }
    }
    ~pool_resource() override {
        for (Free& f : free_) cudaEventDestroy(f.freed);
        upstream_->deallocate(chunk_, size_, stream_);
    }
    int reuses_across_streams = 0;
private:
    struct Free { char* p; cudaStream_t stream; cudaEvent_t freed; };

    void* do_allocate(size_t bytes, cudaStream_t stream) override {
        if (bytes > block_ || free_.empty()) return nullptr;
        Free f = free_.back();
        free_.pop_back();
        if (f.stream != stream) {
            reuses_across_streams++;
            // TODO 2: the block was freed on another stream, whose work may
            // still be using it: make `stream` wait for the event recorded
            // when it was freed.
        }
        events_.push_back(f.freed);
        blocks_.push_back(f.p);
        return f.p;
    }
    void do_deallocate(void* p, size_t, cudaStream_t stream) override {
        cudaEvent_t e = nullptr;
        for (size_t i = 0; i < blocks_.size(); i++)
            if (blocks_[i] == p) { e = events_[i]; blocks_.erase(blocks_.begin() + i); events_.erase(events_.begin() + i); break; }
        // TODO 1: the block is free once the work queued on `stream` so far
        // is done: record its event on `stream`.
        free_.push_back(Free{static_cast<char*>(p), stream, e});
    }

    memory_resource* upstream_;
    size_t block_, size_;
    cudaStream_t stream_;
    char* chunk_;
    std::vector<Free> free_;
    std::vector<char*> blocks_;        // blocks handed out, with their events
    std::vector<cudaEvent_t> events_;
};

__global__ void fill(float* x, int n, float v) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] = v;
}

__global__ void sum(const float* x, int n, float* out) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(out, acc);
}

int main() {
    const int rounds = 8, n = 1 << 22;
    const size_t bytes = n * sizeof(float);
    cudaStream_t s[2];
    for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    float* sums = nullptr;
    CHECK(cudaMalloc(&sums, rounds * sizeof(float)));
    CHECK(cudaMemset(sums, 0, rounds * sizeof(float)));

    async_resource device;
    {
        pool_resource pool(&device, bytes, 1, s[0]);   // one block: every round reuses it
        for (int r = 0; r < rounds; r++) {
            cudaStream_t st = s[r % 2];
            float* x = static_cast<float*>(pool.allocate(bytes, st));
            if (x == nullptr) { fprintf(stderr, "round %d: the pool is empty\n", r); return 1; }
            fill<<<128, 256, 0, st>>>(x, n, (float)(r + 1));
            sum<<<128, 256, 0, st>>>(x, n, sums + r);
            pool.deallocate(x, bytes, st);             // in stream order: after sum
        }
        printf("%d rounds on 2 streams, %d reuses of a block freed on the other stream\n", rounds, pool.reuses_across_streams);
        for (auto& st : s) CHECK(cudaStreamSynchronize(st));
    }   // the pool gives its chunk back to the async resource here
    CHECK(cudaDeviceSynchronize());

    float got[rounds];
    CHECK(cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost));
    int right = 0;
    for (int r = 0; r < rounds; r++) right += got[r] == (float)(r + 1) * n;
    printf("%d of %d rounds summed correctly\n", right, rounds);
    CHECK(cudaFree(sums));
    for (auto& st : s) CHECK(cudaStreamDestroy(st));
    return 0;
}
