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
//
// With FAKE_DRIVER_THREAD set, the calls the library makes for itself
// (recording and reading its timing events, asking whether a stream is
// capturing, describing a kernel) do what a real driver may: wait for a
// thread of the driver's own that enters a hooked function (here
// cudaStreamQuery). A library that holds its lock across such a call never
// returns from it.
//
// fakeBusy makes a stream's or an event's next queries answer "not
// ready", as a GPU still at work would.
//
// fakegraph.cc beside it adds graphs with memory nodes; fakeRawAlloc is
// an allocation the library does not hook; cuGetProcAddress_v2 answers
// "cuMemAlloc" with the fake's own function, and fakeDriverLookup asks for
// it from inside the fake (a driver's own look-up).
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

extern "C" cudaError_t cudaStreamQuery(cudaStream_t);

void* enterHook(void*) {
    cudaStreamQuery(nullptr);          // through the PLT: the library's hook
    return nullptr;
}

// waitForDriverThread: see FAKE_DRIVER_THREAD above.
void waitForDriverThread() {
    static bool on = getenv("FAKE_DRIVER_THREAD") != nullptr;
    if (!on) return;
    pthread_t t;
    if (pthread_create(&t, nullptr, enterHook, nullptr) == 0) pthread_join(t, nullptr);
}

CUresult ownAlloc(uintptr_t* p, size_t n) { return take((void**)p, n); }

// busy: how many more queries of a stream or an event answer "not ready"
// (fakeBusy sets it).
std::map<const void*, int> busy;
cudaError_t notReady(const void* h) {
    auto it = busy.find(h);
    if (it == busy.end() || it->second == 0) return 0;
    it->second--;
    return 600;                        // cudaErrorNotReady
}
uintptr_t nextHandle = 0x7000;
}  // namespace

extern "C" {
// For fakegraph.cc: an address handed out (claim: taken again at a
// launch) and given back.
cudaError_t fakeTake(void** p, size_t n) { return take(p, n); }
void fakeClaim(void* p, size_t n) {
    n = (n + 255) & ~(size_t)255;
    std::vector<void*>& f = freeBySize[n];
    for (size_t i = 0; i < f.size(); i++)
        if (f[i] == p) { f.erase(f.begin() + i); break; }
    sizes[p] = n;
}
cudaError_t fakeGive(void* p) { return give(p); }
cudaError_t fakeRawAlloc(void** p, size_t n) { return take(p, n); }
CUresult cuMemGetAddressRange_v2(uintptr_t* base, size_t* n, uintptr_t p) {
    auto it = sizes.find((void*)p);
    if (it == sizes.end()) return 1;
    *base = p;
    *n = it->second;
    return 0;
}
CUresult cuMemAlloc_v2(uintptr_t* p, size_t n) { return ownAlloc(p, n); }
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, unsigned long long, int* st) {
    if (st != nullptr) *st = 0;
    if (strcmp(symbol, "cuMemAlloc") != 0) return 500;
    *pfn = (void*)ownAlloc;
    return 0;
}
// 1 when the fake's own look-up (through the PLT: the library's hook of
// cuGetProcAddress_v2) got the fake's function, not the library's hook.
int fakeDriverLookup() {
    void* f = nullptr;
    return cuGetProcAddress_v2("cuMemAlloc", &f, 12000, 0, nullptr) == 0 && f == (void*)ownAlloc;
}
cudaError_t cudaMemPoolImportPointer(void** p, void*, void*) { return take(p, 4096); }
cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t w, size_t h) {
    *pitch = (w + 255) & ~(size_t)255;
    return take(p, *pitch * h);
}
struct PitchedPtr { void* ptr; size_t pitch, xsize, ysize; };
struct Extent { size_t width, height, depth; };
cudaError_t cudaMalloc3D(PitchedPtr* pp, Extent e) {
    pp->pitch = (e.width + 255) & ~(size_t)255;
    pp->xsize = e.width;
    pp->ysize = e.height;
    return take(&pp->ptr, pp->pitch * e.height * e.depth);
}
cudaError_t cudaMalloc(void** p, size_t n) { return take(p, n); }
// The next n queries of stream or event h answer "not ready".
void fakeBusy(const void* h, int n) { busy[h] = n; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) { *s = (cudaStream_t)(nextHandle += 16); return 0; }
cudaError_t cudaMemset(void*, int, size_t) { return 0; }
cudaError_t cudaMemcpy(void*, const void*, size_t, int) { return 0; }
cudaError_t cudaDeviceSynchronize(void) { return 0; }
cudaError_t cudaMemPoolCreate(void** pool, const void*) { *pool = (void*)(nextHandle += 16); return 0; }
cudaError_t cudaMemPoolSetAttribute(void*, int, void*) { return 0; }
cudaError_t cudaDeviceSetMemPool(int, void*) { return 0; }
cudaError_t cudaMallocFromPoolAsync(void** p, size_t n, void*, cudaStream_t) { return take(p, n); }
CUresult cuMemMap(unsigned long long, size_t, size_t, unsigned long long, unsigned long long) { return 0; }
CUresult cuMemUnmap(unsigned long long, size_t) { return 0; }
CUresult cuMemAddressReserve(unsigned long long* p, size_t, size_t, unsigned long long addr, unsigned long long) {
    *p = addr != 0 ? addr : 0x7f2000000000ULL;
    return 0;
}
CUresult cuMemAddressFree(unsigned long long, size_t) { return 0; }
cudaError_t cudaFree(void* p) { return give(p); }
cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t) { return take(p, n); }
cudaError_t cudaFreeAsync(void* p, cudaStream_t) { return give(p); }
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t) { return 0; }
cudaError_t cudaMemcpyAsync(void*, const void*, size_t, int, cudaStream_t) { return 0; }
cudaError_t cudaEventCreate(cudaEvent_t* e) { *e = (cudaEvent_t)(nextEvent += 16); return 0; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) { return cudaEventCreate(e); }  // through the PLT
cudaError_t cudaEventDestroy(cudaEvent_t) { return 0; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { waitForDriverThread(); return 0; }
cudaError_t cudaEventRecordWithFlags(cudaEvent_t, cudaStream_t, unsigned int) { return 0; }
cudaError_t cudaEventQuery(cudaEvent_t e) { waitForDriverThread(); return notReady(e); }
cudaError_t cudaStreamQuery(cudaStream_t s) { return notReady(s); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) { *ms = 0; return 0; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return 0; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return 0; }
cudaError_t cudaStreamIsCapturing(cudaStream_t, int* st) { waitForDriverThread(); *st = 0; return 0; }
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
    waitForDriverThread();
    if (i >= 2) return 1;
    *off = 8 * i;
    *size = 8;
    return 0;
}
}
