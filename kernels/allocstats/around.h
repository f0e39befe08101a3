// Included by kernels/allocstats.cu at file scope: one translation unit,
// one library (see the list of sections there).
// ---- Calls around the library ----

// The driver API's allocations, when the program calls them itself (the
// runtime reaches the driver through its own pointers, never these): they
// count as their runtime twins do, and in the guard.
namespace {
void pulseOnly() {
    if (busy()) return;
    std::lock_guard<Lock> g(mu);
    pulse();
}
void driverAlloc(size_t n) {
    guard.driver_alloc_calls++;
    guard.driver_alloc_bytes += n;
}
}  // namespace

#define DHOOK(ret, name, params, args, body)                      \
    extern "C" ret name params {                                  \
        static auto fn = (ret(*) params)realDriver(#name);        \
        if (fn == nullptr) return CUDA_ERROR_NOT_FOUND;           \
        static uintptr_t checked = 0;                             \
        if (((uintptr_t)fn ^ hookSecret) != checked) checked = forwardsToCUDA((const void*)fn, #name); \
        ret r = fn args;                                          \
        if (busy()) return r;                                     \
        {                                                         \
            std::lock_guard<Lock> g(mu);                          \
            record();                                             \
            body                                                  \
        }                                                         \
        pulseOnly();                                              \
        return r;                                                 \
    }

DHOOK(CUresult, cuMemAlloc_v2, (CUdeviceptr* p, size_t n), (p, n), {
    rec->malloc_calls++;
    driverAlloc(n);
    if (r == CUDA_SUCCESS) { rec->malloc_bytes += n; added((void*)*p, n, nullptr, false); } else rec->failed_allocs++;
})
DHOOK(CUresult, cuMemAllocPitch_v2, (CUdeviceptr* p, size_t* pitch, size_t w, size_t h, unsigned int e), (p, pitch, w, h, e), {
    rec->malloc_calls++;
    size_t n = r == CUDA_SUCCESS ? *pitch * h : w * h;
    driverAlloc(n);
    if (r == CUDA_SUCCESS) { rec->malloc_bytes += n; added((void*)*p, n, nullptr, false); } else rec->failed_allocs++;
})
DHOOK(CUresult, cuMemAllocManaged, (CUdeviceptr* p, size_t n, unsigned int f), (p, n, f), {
    rec->malloc_managed_calls++;
    driverAlloc(n);
    if (r == CUDA_SUCCESS) { rec->malloc_managed_bytes += n; added((void*)*p, n, nullptr, false); } else rec->failed_allocs++;
})
DHOOK(CUresult, cuMemAllocHost_v2, (void** p, size_t n), (p, n), {
    rec->malloc_host_calls++;
    driverAlloc(n);
    if (r == CUDA_SUCCESS) { rec->malloc_host_bytes += n; (*hostLive)[(uintptr_t)*p] = n; } else rec->failed_allocs++;
})
DHOOK(CUresult, cuMemHostAlloc, (void** p, size_t n, unsigned int f), (p, n, f), {
    rec->malloc_host_calls++;
    rec->host_alloc_calls++;
    driverAlloc(n);
    if (r == CUDA_SUCCESS) { rec->malloc_host_bytes += n; (*hostLive)[(uintptr_t)*p] = n; } else rec->failed_allocs++;
})
DHOOK(CUresult, cuMemFreeHost, (void* p), (p), {
    rec->free_host_calls++;
    guard.driver_free_calls++;
    if (r == CUDA_SUCCESS) hostLive->erase((uintptr_t)p);
})
DHOOK(CUresult, cuMemAllocAsync, (CUdeviceptr* p, size_t n, CUstream s), (p, n, s), {
    rec->malloc_async_calls++;
    driverAlloc(n);
    if (r == CUDA_SUCCESS) {
        rec->malloc_async_bytes += n;
        added((void*)*p, n, (cudaStream_t)s, true);
        allocPools->insert(currentPool);
        if (!(*streams)[(cudaStream_t)s]) { (*streams)[(cudaStream_t)s] = true; rec->async_streams++; }
    } else rec->failed_allocs++;
})
DHOOK(CUresult, cuMemAllocFromPoolAsync, (CUdeviceptr* p, size_t n, CUmemoryPool pool, CUstream s), (p, n, pool, s), {
    rec->malloc_from_pool_calls++;
    driverAlloc(n);
    notePool((cudaMemPool_t)pool);
    if (r == CUDA_SUCCESS) {
        rec->malloc_from_pool_bytes += n;
        added((void*)*p, n, (cudaStream_t)s, true);
        allocPools->insert((cudaMemPool_t)pool);
    } else rec->failed_allocs++;
})
FREEHOOK(CUresult, CUDA_SUCCESS, realDriver, pulseOnly, cuMemFree_v2, (CUdeviceptr p), (p), p, nullptr, false, {
    rec->free_calls++;
    guard.driver_free_calls++;
})
FREEHOOK(CUresult, CUDA_SUCCESS, realDriver, pulseOnly, cuMemFreeAsync, (CUdeviceptr p, CUstream s), (p, s), p, s, true, {
    rec->free_async_calls++;
    guard.driver_free_calls++;
})
DHOOK(CUresult, cuEventCreate, (CUevent* e, unsigned int f), (e, f), { if (r == CUDA_SUCCESS) eventMade((cudaEvent_t)*e); })
// The driver's own waits count as the runtime's do.
DHOOK(CUresult, cuCtxSynchronize, (void), (), { rec->device_syncs++; hostWaited(); if (r == CUDA_SUCCESS) hostWaitsAll(); })
DHOOK(CUresult, cuStreamSynchronize, (CUstream s), (s), {
    rec->stream_syncs++;
    hostWaited();
    if (r == CUDA_SUCCESS) hostWaitsFor((cudaStream_t)s);
})
// The driver's queries poll as the runtime's do (CUDA_ERROR_NOT_READY is
// cudaErrorNotReady's number).
DHOOK(CUresult, cuStreamQuery, (CUstream s), (s), {
    queried(false, s, (cudaError_t)r);
    if (r == CUDA_SUCCESS) hostWaitsFor((cudaStream_t)s);
})
DHOOK(CUresult, cuEventQuery, (CUevent e), (e), {
    queried(true, e, (cudaError_t)r);
    if (r == CUDA_SUCCESS) hostWaits((*events)[(cudaEvent_t)e]);
    if (r == CUDA_SUCCESS) ipcWaited(*host, (cudaEvent_t)e);
})

// Pointers imported from another process's pool (cudaMemPoolExportPointer
// there): the import says no size, so the driver is asked for the
// allocation's range (with mu free). The memory is followed as the
// program's allocations are, for its uses and its free (pool_import_frees),
// but it is the exporter's: not in this process's live bytes or leaks
// (leaked_pool_imports counts those never freed here).
//
// An import and an export of one block are known by their export data,
// the same bytes in both processes (exportKey hashes them): an import
// takes a slot of importSigs, shared with the processes of the run, which
// the exporter reads at its free of the block (export_frees_early).
namespace {
uint64_t exportKey(const void* data) {
    const unsigned char* b = (const unsigned char*)data;
    uint64_t h = 1469598103934665603ull;   // FNV-1a
    for (size_t i = 0; i < sizeof(cudaMemPoolPtrExportData); i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

void imported(void* p, const void* data) {
    size_t n = rangeAt((uintptr_t)p);
    std::lock_guard<Lock> g(mu);
    record();
    rec->pool_imports++;
    rec->pool_import_bytes += n;
    added(p, n, nullptr, false, kImported);
    if (importSigs == nullptr || data == nullptr) return;
    const uint32_t slot = importSigs->n.fetch_add(1);
    if (slot >= (uint32_t)kImportSigs) return;
    ImportSig& sig = importSigs->sig[slot];
    sig.key.store(exportKey(data));
    sig.importNs.store(monotonicNanos());
    sig.ready.store(1, std::memory_order_release);
    auto it = live->find((uintptr_t)p);
    if (it != live->end()) it->second.sig = (int)slot;
}

void exportedBlock(void* p, const void* data) {
    if (p == nullptr || data == nullptr) return;
    const uint64_t key = exportKey(data), ns = monotonicNanos();
    std::lock_guard<Lock> g(mu);
    record();
    (*exported)[(uintptr_t)p] = Exported{key, ns};
}
}  // namespace

extern "C" cudaError_t cudaMemPoolExportPointer(cudaMemPoolPtrExportData* data, void* p) {
    static auto fn = (cudaError_t(*)(cudaMemPoolPtrExportData*, void*))real("cudaMemPoolExportPointer");
    cudaError_t r = fn(data, p);
    if (busy()) return r;
    if (r == cudaSuccess) exportedBlock(p, data);
    after();
    return r;
}
extern "C" CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData* data, CUdeviceptr p) {
    static auto fn = (CUresult(*)(CUmemPoolPtrExportData*, CUdeviceptr))realDriver("cuMemPoolExportPointer");
    if (fn == nullptr) return CUDA_ERROR_NOT_FOUND;
    CUresult r = fn(data, p);
    if (busy()) return r;
    if (r == CUDA_SUCCESS) exportedBlock((void*)p, data);
    pulseOnly();
    return r;
}

// The driver's exports and imports of shareable handles, as the runtime's
// (devices.h): a POSIX descriptor the program holds is noted.
DHOOK(CUresult, cuMemPoolExportToShareableHandle, (void* h, CUmemoryPool pool, CUmemAllocationHandleType t, unsigned long long f), (h, pool, t, f), {
    if (r == CUDA_SUCCESS && t == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR && h != nullptr) noteShareFd(*(int*)h);
})
DHOOK(CUresult, cuMemPoolImportFromShareableHandle, (CUmemoryPool* pool, void* h, CUmemAllocationHandleType t, unsigned long long f), (pool, h, t, f), {
    if (r == CUDA_SUCCESS && t == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) noteShareFd((int)(uintptr_t)h);
})
DHOOK(CUresult, cuMemExportToShareableHandle, (void* h, CUmemGenericAllocationHandle a, CUmemAllocationHandleType t, unsigned long long f), (h, a, t, f), {
    if (r == CUDA_SUCCESS && t == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR && h != nullptr) noteShareFd(*(int*)h);
})
DHOOK(CUresult, cuMemImportFromShareableHandle, (CUmemGenericAllocationHandle* a, void* h, CUmemAllocationHandleType t), (a, h, t), {
    if (r == CUDA_SUCCESS && t == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) noteShareFd((int)(uintptr_t)h);
})

// close forgets a noted descriptor of a shareable handle, then is libc's.
// Every close of the process that goes through the loader comes here (the
// program's, the runtime's, the driver's): with none noted, it is libc's
// alone. It takes no lock and allocates nothing (forgetShareFd), as close
// is async-signal-safe. Only this process's own closes count: a vfork's
// child (or a raw clone's), which shares the table, closes its copy of a
// descriptor, not the program's. libc's close is found by the library's
// constructor (closeStart), not at a first call a signal handler makes.
namespace {
std::atomic<int (*)(int)> realClose{nullptr};

void closeStart() {
    if (realClose.load() == nullptr) realClose.store((int (*)(int))realDlsym(RTLD_NEXT, "close"));
}
}  // namespace

extern "C" int close(int fd) {
    if (shareFdsNoted.load() > 0 && !busy() && (uint64_t)sysGetpid() == guard.pid) forgetShareFd(fd);
    int (*fn)(int) = realClose.load();
    if (fn == nullptr) {
        closeStart();
        fn = realClose.load();
    }
    if (fn == nullptr) {
        long r = sysClose(fd);
        if (r < 0) {
            errno = (int)-r;
            return -1;
        }
        return 0;
    }
    return fn(fd);
}

extern "C" cudaError_t cudaMemPoolImportPointer(void** p, cudaMemPool_t pool, cudaMemPoolPtrExportData* data) {
    static auto fn = (cudaError_t(*)(void**, cudaMemPool_t, cudaMemPoolPtrExportData*))real("cudaMemPoolImportPointer");
    cudaError_t r = fn(p, pool, data);
    if (busy()) return r;
    if (r == cudaSuccess && p != nullptr) imported(*p, data);
    after();
    return r;
}
extern "C" CUresult cuMemPoolImportPointer(CUdeviceptr* p, CUmemoryPool pool, CUmemPoolPtrExportData* data) {
    static auto fn = (CUresult(*)(CUdeviceptr*, CUmemoryPool, CUmemPoolPtrExportData*))realDriver("cuMemPoolImportPointer");
    if (fn == nullptr) return CUDA_ERROR_NOT_FOUND;
    CUresult r = fn(p, pool, data);
    if (busy()) return r;
    if (r == CUDA_SUCCESS && p != nullptr) imported((void*)*p, data);
    pulseOnly();
    return r;
}
DHOOK(CUresult, cuEventDestroy_v2, (CUevent e), (e), { if (r == CUDA_SUCCESS) eventGone((cudaEvent_t)e); })

// Look-ups. A program that asks for a hooked function by name (dlsym on
// libcudart's handle, the driver's entry points) gets the hook, which
// forwards to the real one; the runtime's and the driver's own look-ups
// get the real ones.
namespace {
void* answer(const char* name, void* found, const void* caller) {
    if (found == nullptr || busy() || nvidiaCaller(caller)) return found;
    void* hook = hookFor(name);
    if (hook == nullptr || hook == found) return found;
    std::lock_guard<Lock> g(mu);
    guard.redirected++;
    return hook;
}

// redirectEntry swaps a driver entry point the program asked for by its
// base name ("cuMemAlloc") for the hook of its current version. As for
// dlsym, the runtime's and the driver's own look-ups (caller: the address
// the look-up returns to) get the real function: a hook handed to the
// driver would be called from the driver's own threads, counting the
// driver's calls as the program's.
void redirectEntry(const char* symbol, void** pfn, const void* caller) {
    if (symbol == nullptr || pfn == nullptr || *pfn == nullptr || busy() || nvidiaCaller(caller)) return;
    char v2[128];
    snprintf(v2, sizeof v2, "%s_v2", symbol);
    void* hook = hookFor(v2);
    if (hook == nullptr) hook = hookFor(symbol);
    if (hook == nullptr || hook == *pfn) return;
    *pfn = hook;
    std::lock_guard<Lock> g(mu);
    guard.redirected++;
}
}  // namespace

// RTLD_NEXT is answered as if asked from this library (glibc takes the
// caller from the return address): for a name this library does not
// define, the same object the program would have found after it.
extern "C" void* dlsym(void* handle, const char* name) {
    void* found = realDlsym(handle, name);
    return answer(name, found, __builtin_return_address(0));
}

extern "C" void* dlvsym(void* handle, const char* name, const char* version) {
    findDl();
    void* found = glibcDlvsym(handle, name, version);
    return answer(name, found, __builtin_return_address(0));
}

// Declared with plain types and named by asm labels: the headers of one
// CUDA version declare some of these with other arguments, or not at all.
extern "C" CUresult lessonsGetProcAddress2(const char* symbol, void** pfn, int v, unsigned long long flags, int* st) __asm__("cuGetProcAddress_v2");
extern "C" CUresult lessonsGetProcAddress2(const char* symbol, void** pfn, int v, unsigned long long flags, int* st) {
    static auto fn = (CUresult(*)(const char*, void**, int, unsigned long long, int*))realDriver("cuGetProcAddress_v2");
    if (fn == nullptr) return CUDA_ERROR_NOT_FOUND;
    CUresult r = fn(symbol, pfn, v, flags, st);
    if (r == CUDA_SUCCESS) redirectEntry(symbol, pfn, __builtin_return_address(0));
    return r;
}
extern "C" CUresult lessonsGetProcAddress1(const char* symbol, void** pfn, int v, unsigned long long flags) __asm__("cuGetProcAddress");
extern "C" CUresult lessonsGetProcAddress1(const char* symbol, void** pfn, int v, unsigned long long flags) {
    static auto fn = (CUresult(*)(const char*, void**, int, unsigned long long))realDriver("cuGetProcAddress");
    if (fn == nullptr) return CUDA_ERROR_NOT_FOUND;
    CUresult r = fn(symbol, pfn, v, flags);
    if (r == CUDA_SUCCESS) redirectEntry(symbol, pfn, __builtin_return_address(0));
    return r;
}
#if CUDART_VERSION >= 12000
extern "C" cudaError_t lessonsGetEntry(const char* symbol, void** pfn, unsigned long long flags, int* st) __asm__("cudaGetDriverEntryPoint");
extern "C" cudaError_t lessonsGetEntry(const char* symbol, void** pfn, unsigned long long flags, int* st) {
    static auto fn = (cudaError_t(*)(const char*, void**, unsigned long long, int*))real("cudaGetDriverEntryPoint");
    cudaError_t r = fn(symbol, pfn, flags, st);
    if (r == cudaSuccess) redirectEntry(symbol, pfn, __builtin_return_address(0));
    return r;
}
#else
extern "C" cudaError_t lessonsGetEntry(const char* symbol, void** pfn, unsigned long long flags) __asm__("cudaGetDriverEntryPoint");
extern "C" cudaError_t lessonsGetEntry(const char* symbol, void** pfn, unsigned long long flags) {
    static auto fn = (cudaError_t(*)(const char*, void**, unsigned long long))real("cudaGetDriverEntryPoint");
    cudaError_t r = fn(symbol, pfn, flags);
    if (r == cudaSuccess) redirectEntry(symbol, pfn, __builtin_return_address(0));
    return r;
}
#endif
extern "C" cudaError_t lessonsGetEntryByVersion(const char* symbol, void** pfn, unsigned int v, unsigned long long flags, int* st) __asm__("cudaGetDriverEntryPointByVersion");
extern "C" cudaError_t lessonsGetEntryByVersion(const char* symbol, void** pfn, unsigned int v, unsigned long long flags, int* st) {
    static auto fn = (cudaError_t(*)(const char*, void**, unsigned int, unsigned long long, int*))real("cudaGetDriverEntryPointByVersion");
    cudaError_t r = fn(symbol, pfn, v, flags, st);
    if (r == cudaSuccess) redirectEntry(symbol, pfn, __builtin_return_address(0));
    return r;
}
