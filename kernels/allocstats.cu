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
// Kernel launches are inspected too: the driver says where each kernel's
// parameters are (cuKernelGetParamInfo, cuFuncGetParamInfo), and every
// pointer-sized word of them that falls inside a live allocation is a use
// of that allocation on the launch's stream (cudaMemcpyAsync and
// cudaMemsetAsync use their buffers the same way). Streams, events and
// host synchronisations keep vector clocks, so that a use on one stream that
// is not ordered after the allocation on another, or a free that is not
// ordered after a use on another stream, is counted as a stream-ordering
// race, and the first one is described in words.
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
#include <cxxabi.h>
#include <stdio.h>
#include <map>
#include <set>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <string>
#include <vector>

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
    uint64_t kernel_launches;          // cudaLaunchKernel, and __cudaLaunchKernel (<<< >>> on CUDA 13)
    uint64_t vmm_reserve_calls, vmm_reserve_bytes, vmm_create_calls, vmm_create_bytes;
    uint64_t vmm_map_calls, vmm_map_bytes, vmm_set_access_calls, vmm_unmap_calls, vmm_release_calls;
    uint64_t exited;                   // 1 once the program reached exit
    uint64_t leaked_allocs, leaked_bytes;
    uint64_t pool_count;
    Pool pools[kMaxPools];
    // version 2
    uint64_t unordered_uses;           // a use on stream B not ordered after the allocation on A
    uint64_t unordered_frees;          // a free on A not ordered after a use on B
    uint64_t launches_inspected;       // launches whose parameters the driver described
    uint64_t buffer_uses;              // pointers into live allocations passed to kernels and copies
    char use_race[192];                // the first unordered use, in words
    char free_race[192];               // the first unordered free, in words
    // version 3
    uint64_t sync_memsets;             // cudaMemset calls: on the default stream, ordered with every blocking stream
    uint64_t sync_memcpys;             // cudaMemcpy calls: the host waits for the copy
    uint64_t waits_between_async_allocs;  // host waits (device, stream, event syncs, cudaMemcpy) after one stream-ordered allocation and before the next
    uint64_t async_stream_syncs;       // cudaStreamSynchronize of a stream that has allocated with cudaMallocAsync
    uint64_t default_stream_ops;       // launches, async allocations, frees, memsets, copies and event records on the default stream
    uint64_t kernel_allocs_used;       // distinct allocations that kernels were passed a pointer into
    uint64_t kernel_addresses_used;    // distinct addresses inside live allocations passed to kernels (a pool's blocks)
    uint64_t event_pairs;              // cudaStreamWaitEvent on an event last recorded on another stream
};

// A use of an allocation: the last operation of a stream that touched it
// at one address (a pool carves one allocation into blocks: streams may use
// different blocks at once, not the same one).
struct Use { cudaStream_t stream; uint64_t seq; uintptr_t addr; std::string what; };

// A vector clock: for each stream, how many of its operations are known to
// come before.
typedef std::unordered_map<cudaStream_t, uint64_t> Clock;

Record scratch;                        // used when no file is given
Record* rec = nullptr;
std::mutex mu;
struct Alloc {
    size_t bytes; cudaStream_t stream; bool async; uint64_t seq; std::vector<Use> uses;
    std::set<uintptr_t> kernelAddrs;   // addresses in it passed to kernels
};
std::map<uintptr_t, Alloc>* live;
std::unordered_map<cudaStream_t, bool>* streams;
std::unordered_map<cudaStream_t, Clock>* clocks;    // per stream
std::unordered_map<cudaEvent_t, Clock>* events;     // as recorded
std::unordered_map<cudaStream_t, int>* numbers;     // streams in the order first seen, for messages
std::unordered_set<cudaStream_t>* nonblocking;
Clock* host;                                        // what the host has waited for

// A kernel as the driver describes it: its name and its parameters'
// (offset, size), looked up once.
struct Kernel { std::string name; std::vector<std::pair<size_t, size_t>> params; bool known; };
std::unordered_map<const void*, Kernel>* kernels;
typedef std::unordered_map<cudaEvent_t, cudaStream_t> RecordedOn;
RecordedOn* recordedOn;               // the stream of each event's last record
uint64_t pendingWaits = 0;            // host waits since the last stream-ordered allocation
bool asyncAllocated = false;          // a stream-ordered allocation was made
thread_local int inLaunch = 0;        // inside __cudaLaunchKernel: its cudaLaunchKernel is the same launch
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
    rec->version = 3;
    live = new std::map<uintptr_t, Alloc>();
    streams = new std::unordered_map<cudaStream_t, bool>();
    clocks = new std::unordered_map<cudaStream_t, Clock>();
    events = new std::unordered_map<cudaEvent_t, Clock>();
    numbers = new std::unordered_map<cudaStream_t, int>();
    nonblocking = new std::unordered_set<cudaStream_t>();
    host = new Clock();
    kernels = new std::unordered_map<const void*, Kernel>();
    return rec;
}

void notePool(cudaMemPool_t pool) {
    if (pool == nullptr) return;
    for (uint64_t i = 0; i < rec->pool_count; i++)
        if (rec->pools[i].handle == (uint64_t)(uintptr_t)pool) return;
    if (rec->pool_count < kMaxPools) rec->pools[rec->pool_count++].handle = (uint64_t)(uintptr_t)pool;
}

// snapshot reads a pool's attributes into its slot; a pool destroyed by
// the program is read just before, and its handle cleared.
void snapshot(Pool* slot) {
    static auto get = (cudaError_t(*)(cudaMemPool_t, cudaMemPoolAttr, void*))real("cudaMemPoolGetAttribute");
    cudaMemPool_t p = (cudaMemPool_t)(uintptr_t)slot->handle;
    if (p == nullptr) return;
    get(p, cudaMemPoolAttrUsedMemCurrent, &slot->used_current);
    get(p, cudaMemPoolAttrUsedMemHigh, &slot->used_high);
    get(p, cudaMemPoolAttrReservedMemCurrent, &slot->reserved_current);
    get(p, cudaMemPoolAttrReservedMemHigh, &slot->reserved_high);
    get(p, cudaMemPoolAttrReleaseThreshold, &slot->release_threshold);
}

void atExit() {
    std::lock_guard<std::mutex> g(mu);
    for (uint64_t i = 0; i < rec->pool_count; i++) snapshot(&rec->pools[i]);
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

// Streams: the legacy default stream is 0 whichever way it is named.
cudaStream_t norm(cudaStream_t s) { return s == cudaStreamLegacy ? nullptr : s; }

int number(cudaStream_t s) {
    s = norm(s);
    if (s == nullptr) return 0;
    auto it = numbers->find(s);
    if (it != numbers->end()) return it->second;
    int n = (int)numbers->size() + 1;
    (*numbers)[s] = n;
    return n;
}

void join(Clock& into, const Clock& from) {
    for (auto& kv : from)
        if (into[kv.first] < kv.second) into[kv.first] = kv.second;
}

// enqueue notes one more operation on stream s and returns its place. It
// comes after everything the host has waited for and, as the CUDA rules for
// the legacy default stream say, after the default stream's work (unless s
// was created non-blocking); on the default stream it comes after every
// blocking stream's work.
uint64_t enqueue(cudaStream_t s) {
    s = norm(s);
    number(s);
    if (s == nullptr) rec->default_stream_ops++;
    Clock& c = (*clocks)[s];
    join(c, *host);
    if (s == nullptr) {
        for (auto& kv : *clocks)
            if (kv.first != nullptr && !nonblocking->count(kv.first)) join(c, kv.second);
    } else if (!nonblocking->count(s)) {
        auto d = clocks->find(nullptr);
        if (d != clocks->end()) join(c, d->second);
    }
    return ++c[s];
}

// ordered says whether operation seq of stream from is known to come before
// what stream s does next.
bool ordered(cudaStream_t s, cudaStream_t from, uint64_t seq) {
    s = norm(s);
    from = norm(from);
    if (s == from) return true;
    auto h = host->find(from);
    if (h != host->end() && h->second >= seq) return true;
    Clock& c = (*clocks)[s];
    auto it = c.find(from);
    return it != c.end() && it->second >= seq;
}

void hostWaits(const Clock& c) { join(*host, c); }

// hostWaited notes a host wait (a synchronisation, a synchronous copy):
// one that falls between two stream-ordered allocations is counted at the
// second.
void hostWaited() {
    if (asyncAllocated) pendingWaits++;
}

// asyncAlloc notes a stream-ordered allocation.
void asyncAlloc() {
    rec->waits_between_async_allocs += pendingWaits;
    pendingWaits = 0;
    asyncAllocated = true;
}

void hostWaitsAll() {
    for (auto& kv : *clocks) join(*host, kv.second);
}

// hostWaitsFor: the host saw stream s finish (waiting for the legacy
// default stream waits for every blocking stream too).
void hostWaitsFor(cudaStream_t s) {
    if (norm(s) == nullptr) hostWaitsAll();
    else hostWaits((*clocks)[s]);
}

std::string sizeWords(size_t n) {
    char b[64];
    if (n >= (1u << 20) && n % (1u << 20) == 0) snprintf(b, sizeof b, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0) snprintf(b, sizeof b, "%zu KiB", n >> 10);
    else snprintf(b, sizeof b, "%zu bytes", n);
    return b;
}

void noteRace(char* into, size_t size, const char* words) {
    if (into[0] == 0) snprintf(into, size, "%s", words);
}

// find returns the live allocation holding address a (and its start in
// base), or null.
Alloc* find(uintptr_t a, uintptr_t* base) {
    auto it = live->upper_bound(a);
    if (it == live->begin()) return nullptr;
    --it;
    if (a >= it->first + it->second.bytes) return nullptr;
    *base = it->first;
    return &it->second;
}

// use notes that operation seq of stream s (what: "kernel scale") used
// allocation x at address addr.
void use(Alloc* x, uintptr_t base, uintptr_t addr, cudaStream_t s, uint64_t seq, const std::string& what) {
    s = norm(s);
    rec->buffer_uses++;
    // Memory from cudaMallocAsync belongs to its stream: another stream may
    // use it once ordered after the allocation, and after the other
    // streams' uses of the same address (reads and writes look alike here).
    if (x->async) {
        char b[256] = {0};
        if (!ordered(s, x->stream, x->seq)) {
            snprintf(b, sizeof b, "%s on stream %d used a %s buffer before its cudaMallocAsync on stream %d was ordered before it (no event)",
                     what.c_str(), number(s), sizeWords(x->bytes).c_str(), number(x->stream));
        } else {
            for (auto& u : x->uses)
                if (u.stream != s && u.addr == addr && !ordered(s, u.stream, u.seq)) {
                    char where[64] = "";
                    if (addr != base) snprintf(where, sizeof where, " at offset %zu", (size_t)(addr - base));
                    snprintf(b, sizeof b, "%s on stream %d used memory%s of a %s allocation that %s on stream %d may still be using (no event)",
                             what.c_str(), number(s), where, sizeWords(x->bytes).c_str(), u.what.c_str(), number(u.stream));
                    break;
                }
        }
        if (b[0] != 0) {
            rec->unordered_uses++;
            noteRace(rec->use_race, sizeof rec->use_race, b);
        }
    }
    for (auto& u : x->uses)
        if (u.stream == s && u.addr == addr) { u.seq = seq; u.what = what; return; }
    if (x->uses.size() >= 256) x->uses.erase(x->uses.begin());
    x->uses.push_back(Use{s, seq, addr, what});
}

void added(void* p, size_t bytes, cudaStream_t s, bool async) {
    s = norm(s);
    (*live)[(uintptr_t)p] = Alloc{bytes, s, async, async ? enqueue(s) : 0, {}};
    rec->live_allocs++;
    rec->live_bytes += bytes;
    if (rec->live_bytes > rec->peak_live_bytes) rec->peak_live_bytes = rec->live_bytes;
}

void removed(void* p, cudaStream_t s, bool async) {
    s = norm(s);
    auto it = live->find((uintptr_t)p);
    if (it == live->end()) return;
    if (async && it->second.async && it->second.stream != s) rec->free_other_stream++;
    if (async) {
        enqueue(s);
        for (auto& u : it->second.uses) {
            if (ordered(s, u.stream, u.seq)) continue;
            rec->unordered_frees++;
            char b[256];
            snprintf(b, sizeof b, "cudaFreeAsync on stream %d freed a %s buffer that %s on stream %d may still be using (no event from stream %d)",
                     number(s), sizeWords(it->second.bytes).c_str(), u.what.c_str(), number(u.stream), number(u.stream));
            noteRace(rec->free_race, sizeof rec->free_race, b);
            break;
        }
    } else {
        hostWaitsAll();                // cudaFree waits for the device
    }
    rec->live_allocs--;
    rec->live_bytes -= it->second.bytes;
    live->erase(it);
}

// driver looks a function up in libcuda (loaded by the runtime by now);
// null when this driver does not have it.
void* driver(const char* name) {
    static void* lib = nullptr;
    if (lib == nullptr) lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    return lib != nullptr ? dlsym(lib, name) : nullptr;
}

std::string demangle(const char* mangled) {
    int status = 0;
    char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::string s = status == 0 && d != nullptr ? d : mangled;
    free(d);
    size_t paren = s.find('(');
    return paren == std::string::npos ? s : s.substr(0, paren);
}

// describeKernel asks the driver once for a kernel's name and parameters;
// handle is a CUkernel (byKernel, CUDA 13's launches) or a CUfunction.
Kernel* describeKernel(const void* key, void* handle, bool byKernel) {
    auto it = kernels->find(key);
    if (it != kernels->end()) return &it->second;
    Kernel k{"a kernel", {}, false};
    typedef CUresult (*ParamInfo)(void*, size_t, size_t*, size_t*);
    typedef CUresult (*GetName)(const char**, void*);
    ParamInfo info = (ParamInfo)driver(byKernel ? "cuKernelGetParamInfo" : "cuFuncGetParamInfo");
    GetName name = (GetName)driver(byKernel ? "cuKernelGetName" : "cuFuncGetName");
    const char* n = nullptr;
    if (handle != nullptr && name != nullptr && name(&n, handle) == CUDA_SUCCESS && n != nullptr)
        k.name = "kernel " + demangle(n);
    if (handle != nullptr && info != nullptr) {
        k.known = true;
        for (size_t i = 0; i < 1024; i++) {
            size_t off = 0, size = 0;
            if (info(handle, i, &off, &size) != CUDA_SUCCESS) break;
            k.params.push_back({off, size});
        }
    }
    return &((*kernels)[key] = k);
}

// launched notes a kernel launch on stream s: every pointer-sized word of
// its parameters that points into a live allocation is a use of it.
void launched(const void* key, void* handle, bool byKernel, void** args, cudaStream_t s, bool ok) {
    rec->kernel_launches++;
    if (!ok) return;
    Kernel* k = describeKernel(key, handle, byKernel);
    uint64_t seq = enqueue(s);
    if (!k->known || args == nullptr) return;
    rec->launches_inspected++;
    for (size_t i = 0; i < k->params.size(); i++) {
        const char* value = (const char*)args[i];
        for (size_t w = 0; value != nullptr && w + sizeof(uintptr_t) <= k->params[i].second; w += sizeof(uintptr_t)) {
            uintptr_t v, base = 0;
            memcpy(&v, value + w, sizeof v);
            Alloc* x = find(v, &base);
            if (x == nullptr) continue;
            if (x->kernelAddrs.empty()) rec->kernel_allocs_used++;
            if (x->kernelAddrs.insert(v).second) rec->kernel_addresses_used++;
            use(x, base, v, s, seq, k->name);
        }
    }
}

// copied notes a cudaMemcpyAsync or cudaMemsetAsync on stream s.
void copied(const char* what, const void* a, const void* b, cudaStream_t s) {
    uint64_t seq = enqueue(s);
    uintptr_t base = 0;
    if (Alloc* x = find((uintptr_t)a, &base)) use(x, base, (uintptr_t)a, s, seq, what);
    if (Alloc* y = b != nullptr ? find((uintptr_t)b, &base) : nullptr) use(y, base, (uintptr_t)b, s, seq, what);
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
        asyncAlloc();
        if (!(*streams)[s]) { (*streams)[s] = true; rec->async_streams++; }
    } else rec->failed_allocs++;
})
HOOK(cudaError_t, cudaFreeAsync, (void* p, cudaStream_t s), (p, s), { rec->free_async_calls++; if (r == cudaSuccess) removed(p, s, true); })
HOOK(cudaError_t, cudaMallocFromPoolAsync, (void** p, size_t n, cudaMemPool_t pool, cudaStream_t s), (p, n, pool, s), {
    rec->malloc_from_pool_calls++;
    notePool(pool);
    if (r == cudaSuccess) { rec->malloc_from_pool_bytes += n; added(*p, n, s, true); asyncAlloc(); } else rec->failed_allocs++;
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
HOOK(cudaError_t, cudaDeviceSynchronize, (void), (), { rec->device_syncs++; hostWaited(); if (r == cudaSuccess) hostWaitsAll(); })
HOOK(cudaError_t, cudaStreamSynchronize, (cudaStream_t s), (s), {
    rec->stream_syncs++;
    hostWaited();
    auto a = streams->find(s);
    if (a != streams->end() && a->second) rec->async_stream_syncs++;
    if (r == cudaSuccess) hostWaitsFor(s);
})
HOOK(cudaError_t, cudaStreamQuery, (cudaStream_t s), (s), { if (r == cudaSuccess) hostWaitsFor(s); })
HOOK(cudaError_t, cudaEventSynchronize, (cudaEvent_t e), (e), { rec->event_syncs++; hostWaited(); if (r == cudaSuccess) hostWaits((*events)[e]); })
HOOK(cudaError_t, cudaEventQuery, (cudaEvent_t e), (e), { if (r == cudaSuccess) hostWaits((*events)[e]); })
HOOK(cudaError_t, cudaEventRecord, (cudaEvent_t e, cudaStream_t s), (e, s), {
    rec->event_records++;
    enqueue(s);
    (*events)[e] = (*clocks)[norm(s)];
    if (recordedOn == nullptr) recordedOn = new RecordedOn();
    if (r == cudaSuccess) (*recordedOn)[e] = norm(s);
})
HOOK(cudaError_t, cudaStreamWaitEvent, (cudaStream_t s, cudaEvent_t e, unsigned int f), (s, e, f), {
    rec->stream_wait_events++;
    if (recordedOn != nullptr) {
        auto on = recordedOn->find(e);
        if (r == cudaSuccess && on != recordedOn->end() && on->second != norm(s)) rec->event_pairs++;
    }
    join((*clocks)[norm(s)], (*events)[e]);
})
HOOK(cudaError_t, cudaStreamCreateWithFlags, (cudaStream_t* s, unsigned int f), (s, f), {
    if (r == cudaSuccess && (f & cudaStreamNonBlocking)) nonblocking->insert(*s);
})
HOOK(cudaError_t, cudaStreamCreateWithPriority, (cudaStream_t* s, unsigned int f, int prio), (s, f, prio), {
    if (r == cudaSuccess && (f & cudaStreamNonBlocking)) nonblocking->insert(*s);
})
HOOK(cudaError_t, cudaMemcpy, (void* d, const void* src, size_t n, cudaMemcpyKind k), (d, src, n, k), {
    rec->sync_memcpys++;
    hostWaited();
    hostWaitsAll();
})
HOOK(cudaError_t, cudaMemset, (void* d, int v, size_t n), (d, v, n), { rec->sync_memsets++; hostWaitsAll(); })
HOOK(cudaError_t, cudaMemcpyAsync, (void* d, const void* src, size_t n, cudaMemcpyKind k, cudaStream_t s), (d, src, n, k, s), {
    copied("cudaMemcpyAsync", d, src, s);
})
HOOK(cudaError_t, cudaMemsetAsync, (void* d, int v, size_t n, cudaStream_t s), (d, v, n, s), {
    copied("cudaMemsetAsync", d, nullptr, s);
})

// cudaMemPoolDestroy: the pool's attributes are read just before it goes.
extern "C" cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
    static auto fn = (cudaError_t(*)(cudaMemPool_t))real("cudaMemPoolDestroy");
    {
        std::lock_guard<std::mutex> g(mu);
        record();
        notePool(pool);
        for (uint64_t i = 0; i < rec->pool_count; i++)
            if (rec->pools[i].handle == (uint64_t)(uintptr_t)pool) {
                snapshot(&rec->pools[i]);
                rec->pools[i].handle = 0;
            }
    }
    return fn(pool);
}

// Launches. nvcc 13's <<< >>> calls __cudaLaunchKernel with a CUkernel
// (the runtime does not declare it in C++ sources); older ones and explicit
// calls go through cudaLaunchKernel with the host stub's address.
extern "C" cudaError_t __cudaLaunchKernel(const void* kernel, dim3 g, dim3 b, void** a, size_t sh, cudaStream_t s) {
    static auto fn = (cudaError_t(*)(const void*, dim3, dim3, void**, size_t, cudaStream_t))real("__cudaLaunchKernel");
    inLaunch++;
    cudaError_t r = fn(kernel, g, b, a, sh, s);
    inLaunch--;
    {
        std::lock_guard<std::mutex> lock(mu);
        record();
        launched(kernel, (void*)kernel, true, a, s, r == cudaSuccess);
    }
    after();
    return r;
}

extern "C" cudaError_t cudaLaunchKernel(const void* f, dim3 g, dim3 b, void** a, size_t sh, cudaStream_t s) {
    static auto fn = (cudaError_t(*)(const void*, dim3, dim3, void**, size_t, cudaStream_t))real("cudaLaunchKernel");
    cudaError_t r = fn(f, g, b, a, sh, s);
    if (inLaunch > 0) return r;
    {
        std::lock_guard<std::mutex> lock(mu);
        record();
        static auto byStub = (cudaError_t(*)(void**, const void*))real("cudaGetFuncBySymbol");
        void* fun = nullptr;
        if (kernels->find(f) == kernels->end() && byStub(&fun, f) != cudaSuccess) fun = nullptr;
        launched(f, fun, false, a, s, r == cudaSuccess);
    }
    after();
    return r;
}
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
