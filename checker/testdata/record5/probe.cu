// A probe of record version 5 on a GPU: one program that does what the
// version's figures count, each a known number of times. Run by the
// record command beside the timing fixtures:
//   nvcc -arch=native -cudart shared -o probe probe.cu -lcuda
//   rec liballocstats.so probe.bin ./probe
// and compare its line of statistics with the expectations printed here.
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define DRV(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    fprintf(stderr, "%s:%d: driver error %d\n", __FILE__, __LINE__, (int)r_); exit(1); } } while (0)

__device__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// spin keeps one block busy for ns nanoseconds.
__global__ void spin(unsigned long long ns, int* out) {
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns) {}
    if (threadIdx.x == 0) atomicAdd(out, 1);
}

// child: a process of its own, forked before the parent touched CUDA.
static int child() {
    CHECK(cudaSetDevice(0));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int* x = nullptr;
    CHECK(cudaMallocAsync(&x, 1 << 20, s));
    spin<<<1, 32, 0, s>>>(1000000, x);
    CHECK(cudaFreeAsync(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

int main() {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 1; }
    if (pid == 0) exit(child());

    // Pinned host memory: two cudaHostAlloc and one cudaMallocHost; the
    // mapped one is never freed.
    void *a = nullptr, *b = nullptr, *c = nullptr;
    CHECK(cudaHostAlloc(&a, 1 << 20, cudaHostAllocDefault));
    CHECK(cudaHostAlloc(&b, 3 << 20, cudaHostAllocMapped));
    CHECK(cudaMallocHost(&c, 1 << 20));
    CHECK(cudaFreeHost(a));
    CHECK(cudaFreeHost(c));

    // An address range freed while mapped (it fails), then in order.
    DRV(cuInit(0));
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    DRV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    CUdeviceptr base;
    CUmemGenericAllocationHandle h;
    DRV(cuMemAddressReserve(&base, 2 * gran, 0, 0, 0));
    DRV(cuMemCreate(&h, gran, &prop, 0));
    DRV(cuMemMap(base, gran, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRV(cuMemSetAccess(base, gran, &acc, 1));
    CUresult early = cuMemAddressFree(base, 2 * gran);
    printf("cuMemAddressFree of a mapped range: %d\n", (int)early);
    DRV(cuMemUnmap(base, gran));
    DRV(cuMemRelease(h));
    DRV(cuMemAddressFree(base, 2 * gran));

    // A graph of four 1 ms kernels captured on s1, launched three times,
    // the second alongside a 5 ms kernel on s2.
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    int* counter = nullptr;
    CHECK(cudaMalloc(&counter, sizeof(int)));
    CHECK(cudaMemset(counter, 0, sizeof(int)));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 4; i++) spin<<<1, 32, 0, s1>>>(1000000, counter);
    CHECK(cudaStreamEndCapture(s1, &g));
    CHECK(cudaGraphInstantiateWithFlags(&ge, g, 0));
    CHECK(cudaGraphLaunch(ge, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaGraphLaunch(ge, s1));
    spin<<<1, 32, 0, s2>>>(5000000, counter);
    CHECK(cudaGraphLaunch(ge, s1));
    CHECK(cudaDeviceSynchronize());
    int n = 0;
    CHECK(cudaMemcpy(&n, counter, sizeof n, cudaMemcpyDeviceToHost));
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(counter));

    int status = 0;
    waitpid(pid, &status, 0);
    // A program started by system(): counted, not followed.
    if (system("true") != 0) printf("system failed\n");
    printf("kernels run %d (13 expected); child %s\n", n, WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ended cleanly" : "failed");
    printf("expected: host_alloc_calls=2 malloc_host_calls=3 free_host_calls=2 host_leaked_allocs=1 host_leaked_bytes=3145728 "
           "vmm_address_free_calls=2 vmm_free_while_mapped=1 vmm_failed_calls=1 vmm_address_free_bytes=%zu "
           "graph_launches=3 graph_kernel_nodes=12 graphs_timed=3 kernels_timed=1 max_concurrent_streams=2 forks=1 execs=1; "
           "children: malloc_async_calls=1 kernel_launches=1 kernels_timed=1 exited=1\n", 2 * gran);
    return 0;
}
