// Every operator at several sites: two loops, a function called in a
// loop, two buffers, events, memsets and copies in stream order.
#include <cuda_runtime.h>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return 1; } while (0)

__global__ void fill(float* x, int n) {}
__global__ void add(float* x, const float* y, int n) {}

void reset(int* counter, cudaStream_t s) {
    // BEGIN SOLUTION
    cudaMemsetAsync(counter, 0, sizeof(int), s);
    // END SOLUTION
}

int main() {
    cudaStream_t a, b;
    cudaEvent_t ready;
    float* keep = nullptr;
    int* counter = nullptr;
    CHECK(cudaMalloc(&keep, 4096));
    CHECK(cudaMalloc(&counter, sizeof(int)));
    for (int i = 0; i < 4; i++) {
        float* x = nullptr;
        // BEGIN SOLUTION
        CHECK(cudaMallocAsync(&x, 4096, a));
        fill<<<4, 256, 0, a>>>(x, 1024);
        CHECK(cudaEventRecord(ready, a));
        CHECK(cudaStreamWaitEvent(b, ready, 0));
        add<<<4, 256, 0, b>>>(keep, x, 1024);
        CHECK(cudaMemcpyAsync(keep, x, 4096, cudaMemcpyDeviceToDevice, b));
        CHECK(cudaFreeAsync(x, b));
        // STUB
        // (void)x;
        // END SOLUTION
        reset(counter, a);
    }
    CHECK(cudaStreamSynchronize(b));
    return 0;
}

// The first error kept, and a pool's attributes asked: first-error and
// unchecked-get.
static cudaError_t first = cudaSuccess, last = cudaSuccess;
static void keep(cudaError_t e, cudaError_t f) {
    // BEGIN SOLUTION
    if (first == cudaSuccess) first = e;
    if (last == cudaSuccess) last = f;
    // END SOLUTION
}
static unsigned long long held(cudaMemPool_t pool) {
    unsigned long long reserved = 0, used = 0;
    // BEGIN SOLUTION
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess) return 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) return 0;
    // END SOLUTION
    return reserved - used;
}

// Two processes ordered by shared events: record-late (each record moved
// after the send that tells the other process to wait for it).
#include <sys/socket.h>
static bool send_all(int sock, const void* p, size_t n) { return send(sock, p, n, 0) == (ssize_t)n; }
static int hand(int sock, int* block, cudaStream_t s, cudaEvent_t filled, cudaEvent_t freed) {
    // BEGIN SOLUTION
    CHECK(cudaEventRecord(filled, s));
    cudaMemPoolPtrExportData data;
    CHECK(cudaMemPoolExportPointer(&data, block));
    if (!send_all(sock, &data, sizeof data)) return 1;
    // END SOLUTION
    // BEGIN SOLUTION
    CHECK(cudaEventRecord(freed, s));
    char ack = 1;
    if (!send_all(sock, &ack, 1)) return 1;
    // END SOLUTION
    return 0;
}
static int share(cudaEvent_t* e) { return cudaEventCreateWithFlags(e, cudaEventInterprocess | cudaEventDisableTiming) != cudaSuccess; }
