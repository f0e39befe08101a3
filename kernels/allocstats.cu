// allocstats: preloaded into a student's program (LD_PRELOAD), it counts
// what the program asks of the CUDA allocator, without touching its source.
//
// Every hooked function forwards to the real one (dlsym RTLD_NEXT). The
// record lives in a file mapped with MAP_SHARED ($LESSONS_STATS), updated as
// the program runs, so a program that crashes still leaves what it did up
// to the crash. At exit the pools' own attributes are added. The program
// must be built with -cudart shared: calls into a static runtime cannot be
// seen from outside.
//
// The layout of struct Record is read by checker/stats.go: keep the two in
// the same order (a test compares them).
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <mutex>
#include <unordered_map>

namespace {

const uint64_t kMagic = 0x5354415453534c4cULL;  // "LLSSTATS"
const int kMaxPools = 8;

struct Pool {
    uint64_t handle;
    uint64_t used_current, used_high, reserved_current, reserved_high, release_threshold;
};

struct Record {
    uint64_t magic;
    uint64_t version;
    uint64_t malloc_calls, malloc_bytes, free_calls;
    uint64_t malloc_async_calls, malloc_async_bytes, free_async_calls;
    uint64_t malloc_from_pool_calls, malloc_from_pool_bytes;
    uint64_t malloc_managed_calls, malloc_managed_bytes;
    uint64_t malloc_host_calls, malloc_host_bytes, free_host_calls;
    uint64_t live_allocs, live_bytes, peak_live_bytes;
    uint64_t failed_allocs;
    uint64_t async_streams;            // distinct streams that allocated asynchronously
    uint64_t free_other_stream;        // cudaFreeAsync on another stream than the allocation's
    uint64_t pools_created, pool_attr_sets, release_threshold_sets, release_threshold, reuse_attr_sets, pool_trims;
    uint64_t device_syncs, stream_syncs, event_syncs, event_records, stream_wait_events;
    uint64_t kernel_launches;          // calls of cudaLaunchKernel; <<< >>> launches built by
                                       // nvcc 13 do not pass through it (reads 0 on CUDA 13)
    uint64_t vmm_reserve_calls, vmm_reserve_bytes, vmm_create_calls, vmm_create_bytes;
    uint64_t vmm_map_calls, vmm_map_bytes, vmm_set_access_calls, vmm_unmap_calls, vmm_release_calls;
    uint64_t exited;                   // 1 once the program reached exit
    uint64_t leaked_allocs, leaked_bytes;
    uint64_t pool_count;
    Pool pools[kMaxPools];
};

Record scratch;                        // used when no file is given
Record* rec = nullptr;
std::mutex mu;
struct Alloc { size_t bytes; cudaStream_t stream; bool async; };
std::unordered_map<void*, Alloc>* live;
std::unordered_map<cudaStream_t, bool>* streams;
std::once_flag exit_hook;

void* real(const char* name) {
    void* f = dlsym(RTLD_NEXT, name);
    if (f == nullptr) {
        static const char msg[] = "allocstats: a CUDA function cannot be found; build with -cudart shared\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        abort();
    }
    return f;
}

Record* record() {
    if (rec != nullptr) return rec;
    const char* path = getenv("LESSONS_STATS");
    if (path != nullptr && *path) {
        int fd = open(path, O_RDWR | O_CREAT, 0600);
        if (fd >= 0 && ftruncate(fd, sizeof(Record)) == 0) {
            void* m = mmap(nullptr, sizeof(Record), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (m != MAP_FAILED) rec = static_cast<Record*>(m);
        }
        if (fd >= 0) close(fd);
    }
    if (rec == nullptr) rec = &scratch;
    memset(rec, 0, sizeof(Record));
    rec->magic = kMagic;
    rec->version = 1;
    live = new std::unordered_map<void*, Alloc>();
    streams = new std::unordered_map<cudaStream_t, bool>();
    return rec;
}

void notePool(cudaMemPool_t pool) {
    if (pool == nullptr) return;
    for (uint64_t i = 0; i < rec->pool_count; i++)
        if (rec->pools[i].handle == (uint64_t)(uintptr_t)pool) return;
    if (rec->pool_count < kMaxPools) rec->pools[rec->pool_count++].handle = (uint64_t)(uintptr_t)pool;
}

void atExit() {
    std::lock_guard<std::mutex> g(mu);
    auto get = (cudaError_t(*)(cudaMemPool_t, cudaMemPoolAttr, void*))real("cudaMemPoolGetAttribute");
    for (uint64_t i = 0; i < rec->pool_count; i++) {
        cudaMemPool_t p = (cudaMemPool_t)(uintptr_t)rec->pools[i].handle;
        get(p, cudaMemPoolAttrUsedMemCurrent, &rec->pools[i].used_current);
        get(p, cudaMemPoolAttrUsedMemHigh, &rec->pools[i].used_high);
        get(p, cudaMemPoolAttrReservedMemCurrent, &rec->pools[i].reserved_current);
        get(p, cudaMemPoolAttrReservedMemHigh, &rec->pools[i].reserved_high);
        get(p, cudaMemPoolAttrReleaseThreshold, &rec->pools[i].release_threshold);
    }
    rec->leaked_allocs = rec->live_allocs;
    rec->leaked_bytes = rec->live_bytes;
    rec->exited = 1;
}

// after runs once the runtime has answered its first call: an exit hook
// registered now runs before the runtime's own teardown.
void after() {
    std::call_once(exit_hook, [] {
        atexit(atExit);
        cudaMemPool_t pool;
        auto getPool = (cudaError_t(*)(cudaMemPool_t*, int))real("cudaDeviceGetMemPool");
        int dev = 0;
        auto getDev = (cudaError_t(*)(int*))real("cudaGetDevice");
        if (getDev(&dev) == cudaSuccess && getPool(&pool, dev) == cudaSuccess) notePool(pool);
    });
}

void added(void* p, size_t bytes, cudaStream_t s, bool async) {
    (*live)[p] = Alloc{bytes, s, async};
    rec->live_allocs++;
    rec->live_bytes += bytes;
    if (rec->live_bytes > rec->peak_live_bytes) rec->peak_live_bytes = rec->live_bytes;
}

void removed(void* p, cudaStream_t s, bool async) {
    auto it = live->find(p);
    if (it == live->end()) return;
    if (async && it->second.async && it->second.stream != s) rec->free_other_stream++;
    rec->live_allocs--;
    rec->live_bytes -= it->second.bytes;
    live->erase(it);
}

}  // namespace

#define HOOK(ret, name, params, args, body)                       \
    extern "C" ret name params {                                  \
        static auto fn = (ret(*) params)real(#name);              \
        ret r = fn args;                                          \
        {                                                         \
            std::lock_guard<std::mutex> g(mu);                    \
            record();                                             \
            body                                                  \
        }                                                         \
        after();                                                  \
        return r;                                                 \
    }

HOOK(cudaError_t, cudaMalloc, (void** p, size_t n), (p, n), {
    rec->malloc_calls++;
    if (r == cudaSuccess) { rec->malloc_bytes += n; added(*p, n, nullptr, false); } else rec->failed_allocs++;
})
HOOK(cudaError_t, cudaFree, (void* p), (p), { rec->free_calls++; if (r == cudaSuccess) removed(p, nullptr, false); })
HOOK(cudaError_t, cudaMallocAsync, (void** p, size_t n, cudaStream_t s), (p, n, s), {
    rec->malloc_async_calls++;
    if (r == cudaSuccess) {
        rec->malloc_async_bytes += n;
        added(*p, n, s, true);
        if (!(*streams)[s]) { (*streams)[s] = true; rec->async_streams++; }
    } else rec->failed_allocs++;
})
HOOK(cudaError_t, cudaFreeAsync, (void* p, cudaStream_t s), (p, s), { rec->free_async_calls++; if (r == cudaSuccess) removed(p, s, true); })
HOOK(cudaError_t, cudaMallocFromPoolAsync, (void** p, size_t n, cudaMemPool_t pool, cudaStream_t s), (p, n, pool, s), {
    rec->malloc_from_pool_calls++;
    notePool(pool);
    if (r == cudaSuccess) { rec->malloc_from_pool_bytes += n; added(*p, n, s, true); } else rec->failed_allocs++;
})
HOOK(cudaError_t, cudaMallocManaged, (void** p, size_t n, unsigned int f), (p, n, f), {
    rec->malloc_managed_calls++;
    if (r == cudaSuccess) { rec->malloc_managed_bytes += n; added(*p, n, nullptr, false); } else rec->failed_allocs++;
})
HOOK(cudaError_t, cudaMallocHost, (void** p, size_t n), (p, n), {
    rec->malloc_host_calls++;
    if (r == cudaSuccess) rec->malloc_host_bytes += n;
})
HOOK(cudaError_t, cudaFreeHost, (void* p), (p), { rec->free_host_calls++; })
HOOK(cudaError_t, cudaMemPoolCreate, (cudaMemPool_t* pool, const cudaMemPoolProps* props), (pool, props), {
    rec->pools_created++;
    if (r == cudaSuccess) notePool(*pool);
})
HOOK(cudaError_t, cudaMemPoolSetAttribute, (cudaMemPool_t pool, cudaMemPoolAttr a, void* v), (pool, a, v), {
    rec->pool_attr_sets++;
    notePool(pool);
    if (a == cudaMemPoolAttrReleaseThreshold) { rec->release_threshold_sets++; rec->release_threshold = *(uint64_t*)v; }
    if (a == cudaMemPoolReuseFollowEventDependencies || a == cudaMemPoolReuseAllowOpportunistic ||
        a == cudaMemPoolReuseAllowInternalDependencies) rec->reuse_attr_sets++;
})
HOOK(cudaError_t, cudaMemPoolTrimTo, (cudaMemPool_t pool, size_t keep), (pool, keep), { rec->pool_trims++; notePool(pool); })
HOOK(cudaError_t, cudaDeviceSynchronize, (void), (), { rec->device_syncs++; })
HOOK(cudaError_t, cudaStreamSynchronize, (cudaStream_t s), (s), { rec->stream_syncs++; })
HOOK(cudaError_t, cudaEventSynchronize, (cudaEvent_t e), (e), { rec->event_syncs++; })
HOOK(cudaError_t, cudaEventRecord, (cudaEvent_t e, cudaStream_t s), (e, s), { rec->event_records++; })
HOOK(cudaError_t, cudaStreamWaitEvent, (cudaStream_t s, cudaEvent_t e, unsigned int f), (s, e, f), { rec->stream_wait_events++; })
HOOK(cudaError_t, cudaLaunchKernel, (const void* f, dim3 g, dim3 b, void** a, size_t sh, cudaStream_t s), (f, g, b, a, sh, s), {
    rec->kernel_launches++;
})
HOOK(CUresult, cuMemAddressReserve, (CUdeviceptr* p, size_t n, size_t al, CUdeviceptr addr, unsigned long long f), (p, n, al, addr, f), {
    rec->vmm_reserve_calls++;
    if (r == CUDA_SUCCESS) rec->vmm_reserve_bytes += n;
})
HOOK(CUresult, cuMemCreate, (CUmemGenericAllocationHandle* h, size_t n, const CUmemAllocationProp* prop, unsigned long long f), (h, n, prop, f), {
    rec->vmm_create_calls++;
    if (r == CUDA_SUCCESS) rec->vmm_create_bytes += n;
})
HOOK(CUresult, cuMemMap, (CUdeviceptr p, size_t n, size_t off, CUmemGenericAllocationHandle h, unsigned long long f), (p, n, off, h, f), {
    rec->vmm_map_calls++;
    if (r == CUDA_SUCCESS) rec->vmm_map_bytes += n;
})
HOOK(CUresult, cuMemSetAccess, (CUdeviceptr p, size_t n, const CUmemAccessDesc* d, size_t c), (p, n, d, c), { rec->vmm_set_access_calls++; })
HOOK(CUresult, cuMemUnmap, (CUdeviceptr p, size_t n), (p, n), { rec->vmm_unmap_calls++; })
HOOK(CUresult, cuMemRelease, (CUmemGenericAllocationHandle h), (h), { rec->vmm_release_calls++; })
