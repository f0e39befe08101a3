// timeline.h: the trace of a run, for lessons' timeline (internal/timeline
// reads it). Included by allocstats/channel.h inside the library's anonymous
// namespace, after the channel: the hooks call these functions in one line each.
//
// With $LESSONS_STATS_TRACE unset nothing is kept: every function returns at
// its first test of tlOn. Set, each traced call appends one fixed-size event
// to a buffer of at most kTlMax events (the trace says when it was cut), and
// the exit handler sends the events, before the end frame, as frames of kind
// kFrameTrace signed and numbered as the record's are: a program cannot
// write, replay or cut them any more than it can the record.
//
// An event, little-endian, 40 bytes (timeline.Event):
//   0  t       u64  nanoseconds since the library started (CLOCK_MONOTONIC)
//   8  kind    u16  kTl* below
//   10 flags   u16  the kind's detail (a host wait's kind, a finding's kind)
//   12 stream  i32  the stream's number (0: the default stream; -1: the host)
//   16 a, b, c u64  the kind's figures (see each function)
// Event ids are positions in the trace, from 0.

enum {
    kFrameTrace = 4,
    kTlAlloc = 1,       // a address, b bytes, c 1 when stream-ordered
    kTlFree = 2,        // a address, b bytes, c the allocation's event id + 1 (0: unknown)
    kTlLaunch = 3,      // a the kernel's name id (a kTlName event)
    kTlCopy = 4,        // a destination, b source, c 1 for a memset
    kTlRecord = 5,      // a the event handle
    kTlWait = 6,        // a the event handle
    kTlHostWait = 7,    // flags kTlWait*, a nanoseconds the host waited
    kTlPool = 8,        // stream the pool's number (in the order seen), a reserved bytes, b used bytes (sent when they changed)
    kTlTrim = 9,        // a bytes kept
    kTlThreshold = 10,  // a the release threshold set
    kTlGraph = 11,      // a kernel nodes, b allocation nodes
    kTlFinding = 12,    // flags kTlFind*, a the event id at fault + 1, b the event id it clashed with + 1, c bytes
    kTlName = 13,       // stream: the name's id; a, b, c: up to 24 bytes of the name
    kTlCut = 14,        // a events left out
    kTlRan = 15,        // stream, a the launch's (or graph launch's) event id + 1, b, c its start and end on the GPU
                        // (nanoseconds on t's clock: the GPU's, aligned with the host's at the first timed launch)
};
enum { kTlWaitDevice = 1, kTlWaitStream = 2, kTlWaitEvent = 3, kTlWaitCopy = 4 };
enum { kTlFindUse = 1, kTlFindFree = 2, kTlFindAfterFree = 3, kTlFindLeak = 4 };

struct TlEvent {
    uint64_t t;
    uint16_t kind, flags;
    int32_t stream;
    uint64_t a, b, c;
};
static_assert(sizeof(TlEvent) == 40, "a trace event is 40 bytes (internal/timeline)");

const size_t kTlMax = 1 << 15;         // events kept: 1.3 MB at most
bool tlOn;
uint64_t tlT0, tlDropped, tlLast = (uint64_t)-1, tlFreedAlloc;
std::vector<TlEvent>* tlEvents;
std::unordered_map<uintptr_t, uint64_t>* tlAllocAt;  // a live allocation's event id
std::unordered_map<const void*, uint64_t>* tlNames;  // a kernel's name id

int number(cudaStream_t s);
cudaStream_t norm(cudaStream_t s);
void* realDriver(const char* name);

// The kernels' times on the GPU come from the library's timing events
// (startTiming, harvest): a timed launch's start event is tied to its
// trace event (tlTimed), and each pair read gives a kTlRan event
// (tlSpans). The GPU's clock is the origin event's: tlOriginNs is the
// host's time when it was recorded.
uint64_t tlLaunchId = (uint64_t)-1, tlOriginNs;
std::unordered_map<cudaEvent_t, uint64_t>* tlTimedAt;
struct TlRan { cudaEvent_t start; cudaStream_t stream; float a, b; bool ok; };

// The pool's reserved and used bytes, asked for after the calls that can
// change them (an allocation or free from a pool, a host wait, a trim, a
// threshold set) with mu free: at most kTlPools pools, an event only when
// a figure changed.
const size_t kTlPools = 8;
std::atomic<bool> tlPoolDue{false};
std::vector<cudaMemPool_t>* tlPoolList;
std::vector<std::pair<uint64_t, uint64_t>>* tlPoolLast;

uint64_t tlNow() {
    if (!tlOn) return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void countCopies();

// tlEnvSet says whether name (ending in '=') is set, not to "" or "0", in
// envp; it calls nothing the program can define.
bool tlEnvSet(char** envp, const char* name) {
    for (char** e = envp; e != nullptr && *e != nullptr; e++) {
        size_t i = 0;
        while (name[i] != 0 && (*e)[i] == name[i]) i++;
        if (name[i] == 0) return (*e)[i] != 0 && (*e)[i] != '0';
    }
    return false;
}

// tlElsewhere: a lesson's cell is being traced (LESSONS_STATS_CELL, set
// by internal/notebook for lessons run --timeline and the page's toggle,
// with the library preloaded into the cell's shell and everything it
// starts) and this process is not a CUDA program (no libcudart mapped:
// the shell, nvcc, the compiler): it leaves the channel, the key and the
// trace to the program the cell runs, and records nothing. Called in the
// constructor, mu held.
bool tlElsewhere(char** envp) {
    if (!tlEnvSet(envp, "LESSONS_STATS_CELL=")) return false;
    countCopies();
    return guard.runtime_copies == 0;
}

// tlStart runs in the constructor, mu held: the environment is read from
// envp by the library's own code, as the channel's is.
void tlStart(char** envp) {
    if (!tlEnvSet(envp, "LESSONS_STATS_TRACE=")) return;
    tlOn = true;
    tlT0 = tlNow();
    tlEvents = new std::vector<TlEvent>();
    tlEvents->reserve(kTlMax);     // one allocation, never a copy while tracing
    tlAllocAt = new std::unordered_map<uintptr_t, uint64_t>();
    tlNames = new std::unordered_map<const void*, uint64_t>();
    tlTimedAt = new std::unordered_map<cudaEvent_t, uint64_t>();
    tlPoolList = new std::vector<cudaMemPool_t>();
    tlPoolLast = new std::vector<std::pair<uint64_t, uint64_t>>();
}

// tlAdd appends an event (mu held) and returns its id, or -1 when cut.
uint64_t tlAdd(uint16_t kind, uint16_t flags, int32_t stream, uint64_t a, uint64_t b, uint64_t c, uint64_t t = 0) {
    if (tlEvents->size() >= kTlMax - 1) { tlDropped++; return (uint64_t)-1; }
    if (t == 0) t = tlNow();
    tlEvents->push_back(TlEvent{t - tlT0, kind, flags, stream, a, b, c});
    return tlLast = tlEvents->size() - 1;
}

int32_t tlStream(cudaStream_t s) { return number(norm(s)); }

void tlAlloc(const void* p, size_t n, cudaStream_t s, bool async) {
    if (!tlOn) return;
    uint64_t id = tlAdd(kTlAlloc, 0, tlStream(s), (uintptr_t)p, n, async ? 1 : 0);
    if (id != (uint64_t)-1) (*tlAllocAt)[(uintptr_t)p] = id;
    if (async) tlPoolDue = true;
}

void tlFree(const void* p, size_t n, cudaStream_t s) {
    if (!tlOn) return;
    uint64_t from = 0;
    auto it = tlAllocAt->find((uintptr_t)p);
    if (it != tlAllocAt->end()) { from = it->second + 1; tlAllocAt->erase(it); }
    tlFreedAlloc = from;
    tlAdd(kTlFree, 0, tlStream(s), (uintptr_t)p, n, from);
    if (from > 0 && (*tlEvents)[from - 1].c == 1) tlPoolDue = true;
}

void tlLaunch(const void* key, const std::string& name, cudaStream_t s) {
    if (!tlOn) return;
    auto it = tlNames->find(key);
    uint64_t id;
    if (it != tlNames->end()) id = it->second;
    else {
        id = tlNames->size();
        (*tlNames)[key] = id;
        // Only c_str of the string: every other method would be one more
        // import a program could define (internal/exercise/imports_test.go).
        uint64_t w[3] = {0, 0, 0};
        const char* n = name.c_str();
        static const char prefix[] = "kernel ";
        size_t p = 0;
        while (prefix[p] != 0 && n[p] == prefix[p]) p++;
        if (prefix[p] == 0) n += p;
        size_t len = 0;
        while (n[len] != 0 && len < sizeof w) len++;
        ownCopy(w, n, len);
        tlAdd(kTlName, 0, (int32_t)id, w[0], w[1], w[2]);
    }
    tlLaunchId = tlAdd(kTlLaunch, 0, tlStream(s), id, 0, 0);
}

void tlCopy(const void* dst, const void* src, cudaStream_t s, bool memset) {
    if (tlOn) tlAdd(kTlCopy, 0, tlStream(s), (uintptr_t)dst, (uintptr_t)src, memset ? 1 : 0);
}

void tlRecord(cudaEvent_t e, cudaStream_t s) {
    if (tlOn) tlAdd(kTlRecord, 0, tlStream(s), (uintptr_t)e, 0, 0);
}

// tlWait: stream s waits for event e (the reader pairs it with the
// event's last record before it).
void tlWait(cudaEvent_t e, cudaStream_t s) {
    if (tlOn) tlAdd(kTlWait, 0, tlStream(s), (uintptr_t)e, 0, 0);
}

// tlHostWait: the host waited from t0 (taken before the call) to now.
void tlHostWait(uint16_t kind, int32_t stream, uint64_t t0) {
    if (!tlOn) return;
    uint64_t now = tlNow();
    tlAdd(kTlHostWait, kind, stream, now - t0, 0, 0, t0);
    tlPoolDue = true;
}

void tlTrim(size_t keep) {
    if (tlOn) { tlAdd(kTlTrim, 0, -1, keep, 0, 0); tlPoolDue = true; }
}

void tlThreshold(uint64_t v) {
    if (tlOn) { tlAdd(kTlThreshold, 0, -1, v, 0, 0); tlPoolDue = true; }
}

void tlGraph(cudaStream_t s, uint64_t kernels, uint64_t allocs) {
    if (tlOn) tlLaunchId = tlAdd(kTlGraph, 0, tlStream(s), kernels, allocs, 0);
}

// tlTimed ties the timing pair whose start event is start (null: the
// launch was not timed) to the launch just traced; mu is held.
void tlTimed(cudaEvent_t start) {
    if (!tlOn) return;
    if (start != nullptr && tlLaunchId != (uint64_t)-1) (*tlTimedAt)[start] = tlLaunchId;
    tlLaunchId = (uint64_t)-1;
}

// tlOrigin notes when the timing events' origin was recorded; mu is held.
void tlOrigin() {
    if (tlOn) tlOriginNs = tlNow() - tlT0;
}

// tlSpans turns the timing pairs read (ms since the origin) into kTlRan
// events of the launches they timed; mu is held.
void tlSpans(const std::vector<TlRan>& ran) {
    for (auto& r : ran) {
        auto it = tlTimedAt->find(r.start);
        if (it == tlTimedAt->end()) continue;
        uint64_t id = it->second;
        tlTimedAt->erase(it);
        if (!r.ok || r.a < 0) continue;
        float b = r.b < r.a ? r.a : r.b;
        tlAdd(kTlRan, 0, tlStream(r.stream), id + 1, tlOriginNs + (uint64_t)((double)r.a * 1e6), tlOriginNs + (uint64_t)((double)b * 1e6), 0);
    }
}

// tlPoolSample asks for the reserved and used bytes of the pools the
// program allocated from (allocPools; null: the device's pool) and has
// not destroyed, when a
// call that can change them was traced; mu is not held. It asks the
// driver (there in every CUDA program, the runtime's or not), which
// leaves the runtime's last error as it was; without it, nothing.
void tlPoolSample() {
    if (!tlOn || !tlPoolDue.exchange(false)) return;
    typedef CUresult (*GetFn)(CUmemoryPool, CUmemPool_attribute, void*);
    static GetFn get = (GetFn)realDriver("cuMemPoolGetAttribute");
    if (get == nullptr) return;
    std::vector<cudaMemPool_t> pools;
    {
        std::lock_guard<Lock> g(mu);
        if (tlEvents->size() >= kTlMax - 1) return;  // cut: nothing more is kept, so nothing is asked
        for (cudaMemPool_t p : *allocPools) {
            cudaMemPool_t q = p != nullptr ? p : devicePool;
            // Only a pool still listed in the record: one the program
            // destroyed has its handle cleared there, and is not asked.
            bool listed = false;
            for (uint64_t i = 0; i < rec->pool_count && q != nullptr; i++) listed = listed || rec->pools[i].handle == (uint64_t)(uintptr_t)q;
            if (listed && pools.size() < kTlPools) pools.push_back(q);
        }
    }
    std::vector<std::pair<uint64_t, uint64_t>> got(pools.size());
    std::vector<bool> ok(pools.size());
    {
        // This thread's capture mode relaxed while it asks: a query made
        // while a stream captures in the global mode (a graph's
        // allocation node is a pooled allocation) invalidated the capture
        // on the H200 ("operation failed due to a previous error during
        // capture" in graph-alloc's solution under --timeline).
        typedef CUresult (*ModeFn)(CUstreamCaptureMode*);
        static ModeFn exchange = (ModeFn)realDriver("cuThreadExchangeStreamCaptureMode");
        CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
        Own own;
        if (exchange != nullptr) exchange(&mode);
        for (size_t i = 0; i < pools.size(); i++)
            ok[i] = get((CUmemoryPool)pools[i], CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &got[i].first) == CUDA_SUCCESS &&
                    get((CUmemoryPool)pools[i], CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &got[i].second) == CUDA_SUCCESS;
        if (exchange != nullptr) exchange(&mode);
    }
    std::lock_guard<Lock> g(mu);
    for (size_t i = 0; i < pools.size(); i++) {
        if (!ok[i]) continue;
        size_t k = 0;
        while (k < tlPoolList->size() && (*tlPoolList)[k] != pools[i]) k++;
        if (k == tlPoolList->size()) {
            if (k >= kTlPools) continue;
            tlPoolList->push_back(pools[i]);
            tlPoolLast->push_back({(uint64_t)-1, (uint64_t)-1});
        }
        if ((*tlPoolLast)[k] == got[i]) continue;
        (*tlPoolLast)[k] = got[i];
        tlAdd(kTlPool, 0, (int32_t)k, got[i].first, got[i].second, 0);
    }
}

// tlFinding ties a finding of the judge to the last event traced (the
// operation at fault) and to the allocation at base (0: none).
void tlFinding(uint16_t kind, uintptr_t base, size_t bytes) {
    if (!tlOn) return;
    uint64_t with = 0;
    auto it = tlAllocAt->find(base);
    if (it != tlAllocAt->end()) with = it->second + 1;
    else if (kind == kTlFindFree) with = tlFreedAlloc;
    tlAdd(kTlFinding, kind, -1, tlLast + 1, with, bytes);
}

// tlLeaks notes each allocation live at exit as a leak of its allocation.
void tlLeaks() {
    if (!tlOn) return;
    for (auto& kv : *tlAllocAt) tlAdd(kTlFinding, kTlFindLeak, -1, kv.second + 1, 0, 0);
}

// tlFlush sends the trace as frames of kind kFrameTrace, before the end
// frame; mu is held. Each frame: the header, events, the guard, the MAC.
void tlFlush() {
    if (!tlOn || chanFd < 0 || chanEnded || sysGetpid() != chanPid || quiet) return;
    if (!chanStarted) writeFrame(kFrameStart);
    tlLeaks();
    if (tlDropped > 0) tlEvents->push_back(TlEvent{tlNow() - tlT0, kTlCut, 0, -1, tlDropped, 0, 0});
    const size_t per = (kFrameMax - kFrameHeader - sizeof(Guard) - 32) / sizeof(TlEvent);
    for (size_t i = 0; i < tlEvents->size() && chanFd >= 0; i += per) {
        struct stat st;
        if (sysFstat(chanFd, &st) != 0 || st.st_dev != chanDev || st.st_ino != chanIno) { chanFd = -1; return; }
        size_t k = std::min(per, tlEvents->size() - i);
        uint8_t f[kFrameMax];
        uint32_t magic = 0x3146534c, rl = (uint32_t)(k * sizeof(TlEvent)), gl = sizeof(Guard);
        uint16_t kind = kFrameTrace, flags = 0;
        ownCopy(f, &magic, 4);
        ownCopy(f + 4, &kind, 2);
        ownCopy(f + 6, &flags, 2);
        ownCopy(f + 8, &chanSeq, 8);
        ownCopy(f + 16, &rl, 4);
        ownCopy(f + 20, &gl, 4);
        ownCopy(f + kFrameHeader, tlEvents->data() + i, rl);
        ownCopy(f + kFrameHeader + rl, &guard, gl);
        size_t n = kFrameHeader + rl + gl;
        hmacSha256(chanKey, f, n, f + n);
        n += 32;
        long w = chanWrite(chanFd, f, n);
        if (w < 0) channelRefused();
        chanSeq++;
    }
}
