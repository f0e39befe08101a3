// A stand-in for the CUDA runtime and driver, so that the statistics
// library's bookkeeping runs on a machine without a GPU: built as
// libcuda.so.1 (the library asks the driver by that name), it answers the
// calls the library forwards and makes itself. Memory comes from an arena
// with a free list per size, so that a block freed and allocated again
// gets the same address, as a pool's would. Every kernel has two
// pointer parameters. cudaEventCreateWithFlags calls the exported
// cudaEventCreate, which the preloaded library hooks: the program's call
// reaches the hook twice (one event, counted once), and the library's own
// call for its timing events reaches it from inside the library's lock
// (forwarded, not counted, and not waiting for the lock it holds).
#include <stddef.h>
#include <stdint.h>
#include <map>
#include <vector>

typedef int cudaError_t;
typedef int CUresult;
typedef void* cudaStream_t;
typedef void* cudaEvent_t;

namespace {
alignas(256) char arena[1 << 20];
size_t used;
std::map<size_t, std::vector<void*>> freeBySize;
std::map<void*, size_t> sizes;
uintptr_t nextEvent = 0x1000;

cudaError_t take(void** p, size_t n) {
    n = (n + 255) & ~(size_t)255;
    std::vector<void*>& f = freeBySize[n];
    if (!f.empty()) {
        *p = f.back();
        f.pop_back();
    } else {
        if (used + n > sizeof arena) return 2;
        *p = arena + used;
        used += n;
    }
    sizes[*p] = n;
    return 0;
}

cudaError_t give(void* p) {
    auto it = sizes.find(p);
    if (it == sizes.end()) return 1;
    freeBySize[it->second].push_back(p);
    sizes.erase(it);
    return 0;
}
}  // namespace

extern "C" {
cudaError_t cudaMalloc(void** p, size_t n) { return take(p, n); }
cudaError_t cudaFree(void* p) { return give(p); }
cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t) { return take(p, n); }
cudaError_t cudaFreeAsync(void* p, cudaStream_t) { return give(p); }
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t) { return 0; }
cudaError_t cudaMemcpyAsync(void*, const void*, size_t, int, cudaStream_t) { return 0; }
cudaError_t cudaEventCreate(cudaEvent_t* e) { *e = (cudaEvent_t)(nextEvent += 16); return 0; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) { return cudaEventCreate(e); }  // through the PLT
cudaError_t cudaEventDestroy(cudaEvent_t) { return 0; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return 0; }
cudaError_t cudaEventQuery(cudaEvent_t) { return 0; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) { *ms = 0; return 0; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return 0; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return 0; }
cudaError_t cudaStreamIsCapturing(cudaStream_t, int* st) { *st = 0; return 0; }
cudaError_t cudaThreadExchangeStreamCaptureMode(int*) { return 0; }
cudaError_t cudaPeekAtLastError(void) { return 0; }
cudaError_t cudaGetLastError(void) { return 0; }
cudaError_t cudaGetDevice(int* d) { *d = 0; return 0; }
cudaError_t cudaDeviceGetMemPool(void** pool, int) { *pool = nullptr; return 1; }
cudaError_t cudaMemPoolGetAttribute(void*, int, void*) { return 1; }
cudaError_t cudaLaunchKernel(const void*, ...) { return 0; }
cudaError_t cudaGetFuncBySymbol(void** f, const void* stub) { *f = (void*)stub; return 0; }
CUresult cuFuncGetName(const char** name, void*) { *name = "k"; return 0; }
CUresult cuFuncGetParamInfo(void*, size_t i, size_t* off, size_t* size) {
    if (i >= 2) return 1;
    *off = 8 * i;
    *size = 8;
    return 0;
}
}
