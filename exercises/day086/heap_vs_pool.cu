// Lists of different lengths, built inside kernels two ways: each thread
// takes its list from the device heap (malloc in a kernel), or from one
// buffer of the pool (cudaMallocAsync) that the threads cut up by moving
// an offset. The heap is used for several rounds, so what is not freed
// in one round is missing in the next.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

// The length of list i: from 1 to 61 ints.
__host__ __device__ inline int need(int i) { return 1 + (int)(((unsigned)i * 7919u) % 61u); }

// counters[0]: heap lists that got no memory; counters[1]: the pool's
// offset in bytes; counters[2]: pool lists that did not fit.
enum { kHeapFailed, kOffset, kPoolFailed };

// Thread i takes a list of need(i) ints from the device heap and fills it
// with i, i+1, ...; lists[i] is the list, or null when it got none.
__global__ void build_heap(int** lists, int n, unsigned long long* counters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int len = need(i);
    int* p = nullptr;
    // TODO 2: take the list from the device heap; a heap that is full
    // answers with null, which must be counted (counters[kHeapFailed]),
    // and never written through.
    if (p == nullptr) { lists[i] = nullptr; return; }
    for (int k = 0; k < len; k++) p[k] = i + k;
    lists[i] = p;
}

// Adds every list into *total, then gives the heap lists back.
__global__ void sum_heap(int** lists, int n, unsigned long long* total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || lists[i] == nullptr) return;
    unsigned long long acc = 0;
    for (int k = 0; k < need(i); k++) acc += lists[i][k];
    atomicAdd(total, acc);
    // TODO 3: the list came from the device heap: give it back.
    lists[i] = nullptr;
}

// Thread i cuts its list of need(i) ints from arena (cap bytes) by moving
// the offset counters[kOffset]; a list that does not fit is counted in
// counters[kPoolFailed] and left null.
__global__ void build_pool(char* arena, unsigned long long cap, int** lists, int n, unsigned long long* counters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int len = need(i);
    int* p = nullptr;
    // TODO 5: take the list's bytes from the arena.
    (void)arena;
    (void)cap;
    (void)counters;
    lists[i] = nullptr;
    return;
    for (int k = 0; k < len; k++) p[k] = i + k;
    lists[i] = p;
}

__global__ void sum_lists(int** lists, int n, unsigned long long* total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || lists[i] == nullptr) return;
    unsigned long long acc = 0;
    for (int k = 0; k < need(i); k++) acc += lists[i][k];
    atomicAdd(total, acc);
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

// Usage: heap_vs_pool [LISTS] [ROUNDS] (100000 lists, 4 rounds by default).
int main(int argc, char** argv) {
    const int n = arg(argc, argv, 1, 100000, 1000000), rounds = arg(argc, argv, 2, 4, 10);
    const int blocks = (n + 255) / 256;
    unsigned long long demand = 0, expected = 0;   // bytes of all lists; the sum of their ints
    for (int i = 0; i < n; i++) {
        demand += need(i) * sizeof(int);
        for (int k = 0; k < need(i); k++) expected += (unsigned long long)(i + k);
    }
    CHECK(cudaSetDevice(0));

    // TODO 1: the heap must hold every list of a round at once, with room
    // for malloc's own bookkeeping: set its size before any kernel that
    // calls malloc runs.
    size_t limit = 0;
    CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int** lists = nullptr;
    unsigned long long *counters = nullptr, *totals = nullptr;
    CHECK(cudaMallocAsync(&lists, n * sizeof(int*), s));
    CHECK(cudaMallocAsync(&counters, 3 * sizeof(unsigned long long), s));
    CHECK(cudaMallocAsync(&totals, (rounds + 1) * sizeof(unsigned long long), s));
    CHECK(cudaMemsetAsync(counters, 0, 3 * sizeof(unsigned long long), s));
    CHECK(cudaMemsetAsync(totals, 0, (rounds + 1) * sizeof(unsigned long long), s));
    cudaEvent_t t[3];
    for (auto& e : t) CHECK(cudaEventCreate(&e));

    CHECK(cudaEventRecord(t[0], s));
    for (int r = 0; r < rounds; r++) {
        build_heap<<<blocks, 256, 0, s>>>(lists, n, counters);
        sum_heap<<<blocks, 256, 0, s>>>(lists, n, totals + r);
    }
    CHECK(cudaEventRecord(t[1], s));
    // TODO 4: the same lists from the pool: one buffer from cudaMallocAsync
    // of exactly the bytes they need, cut up by build_pool, summed by
    // sum_lists into totals[rounds], and freed, all in s's order.
    CHECK(cudaEventRecord(t[2], s));
    CHECK(cudaGetLastError());

    unsigned long long got[3 + 11] = {};
    CHECK(cudaMemcpyAsync(got, counters, 3 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(got + 3, totals, (rounds + 1) * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    float heapMs = 0, poolMs = 0;
    CHECK(cudaEventElapsedTime(&heapMs, t[0], t[1]));
    CHECK(cudaEventElapsedTime(&poolMs, t[1], t[2]));
    int heapRight = 0;
    for (int r = 0; r < rounds; r++) heapRight += got[3 + r] == expected;
    printf("device heap of %zu MiB for lists of %llu KiB in all\n", limit >> 20, demand >> 10);
    printf("heap: %llu lists got no memory; %d of %d rounds summed correctly\n", got[kHeapFailed], heapRight, rounds);
    printf("pool: %llu lists did not fit; sum %s\n", got[kPoolFailed], got[3 + rounds] == expected ? "correct" : "wrong");
    printf("heap: %.2f ms a round; pool: %.3f ms\n", heapMs / rounds, poolMs);
    CHECK(cudaFreeAsync(lists, s));
    CHECK(cudaFreeAsync(counters, s));
    CHECK(cudaFreeAsync(totals, s));
    CHECK(cudaStreamSynchronize(s));
    for (auto& e : t) CHECK(cudaEventDestroy(e));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
