// witness3's probe of the runtime's allocation entry points a course
// program may call (graded against block-pool's spec: its checks fail,
// its record and the kernel's counts must agree all the same).
#include <cstdio>
#include <cuda_runtime.h>
int main() {
    void* p;
    size_t pitch;
    cudaMalloc(&p, 1 << 20); cudaFree(p);
    cudaMallocPitch(&p, &pitch, 1000, 10); cudaFree(p);
    cudaPitchedPtr pp; cudaMalloc3D(&pp, make_cudaExtent(1000, 10, 2)); cudaFree(pp.ptr);
    cudaMallocHost(&p, 4096); cudaFreeHost(p);
    cudaHostAlloc(&p, 4096, cudaHostAllocDefault); cudaFreeHost(p);
    cudaMallocManaged(&p, 4096); cudaFree(p);
    // Arrays count as cudaMalloc (malloc_calls), their frees as cudaFree.
    cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
    cudaArray_t a; cudaMallocArray(&a, &d, 256, 64); cudaFreeArray(a);
    cudaMalloc3DArray(&a, &d, make_cudaExtent(32, 32, 4)); cudaFreeArray(a);
    cudaMipmappedArray_t m; cudaMallocMipmappedArray(&m, &d, make_cudaExtent(64, 64, 0), 3); cudaFreeMipmappedArray(m);
    cudaStream_t s; cudaStreamCreate(&s);
    cudaMallocAsync(&p, 4096, s); cudaFreeAsync(p, s);
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool; cudaMemPoolCreate(&pool, &props);
    cudaMallocFromPoolAsync(&p, 4096, pool, s); cudaFreeAsync(p, s);
    cudaStreamSynchronize(s);
    cudaMemPoolDestroy(pool);
    cudaStreamDestroy(s);
    printf("done\n");
    return 0;
}
