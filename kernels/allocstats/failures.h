// Included by kernels/allocstats.cu at file scope: one translation unit,
// one library (see the list of sections there).
// ---- Error paths the grader opens (record version 10) ----
//
// A hidden run's spec may name calls to fail: $LESSONS_STATS_FAIL is
// "name:N[,name:N]...", and the Nth call of each named hooked function
// (counted from 1, the library's own calls not counted) returns out of
// memory without being made. So a branch that only a failure takes (a
// handle given back when a map fails, an error kept and returned) runs
// where the course's inputs never fail. The setting is taken out of the
// environment before the program starts, as the channel's are.
namespace {
struct FailAt { char name[64]; uint64_t at; std::atomic<uint64_t> calls{0}; };
FailAt failAt[8];
int failCount = 0;
// heapCap, when not 0, is the most bytes the device heap may have in this
// run ($LESSONS_STATS_HEAP): a device malloc past it returns NULL, the
// branch a program's default heap never takes.
uint64_t heapCap = 0;
// ipcDelayMs, when not 0, is how long a record of an interprocess event
// waits on the host before it is made ($LESSONS_STATS_IPC_DELAY).
uint64_t ipcDelayMs = 0;
// settledQueries: each query of an event or a stream first waits on the
// host for its work ($LESSONS_STATS_SETTLED_QUERIES=1), so that it answers
// ready for work that finishes: the branch a program takes when the work
// is already done by the time it asks runs every time.
bool settledQueries = false;
// pendingQueries: the first query of an event's record, or of a stream's
// queued work, answers "not ready" whatever the GPU did
// ($LESSONS_STATS_PENDING_QUERIES=1), as for a GPU that lags the host: a
// program that polls then asks again, and the record counts the poll,
// where on a GPU done before the host asked the poll never spun (the
// opposite of settledQueries).
bool pendingQueries = false;

// failStart reads $LESSONS_STATS_FAIL; an entry it cannot read is left
// out (the checker refuses such a spec before anything runs).
void failStart(char** envp) {
    char text[640], cap[32];
    heapCap = 0;
    if (takeEnv(envp, "LESSONS_STATS_HEAP", cap, sizeof cap))
        for (int i = 0; cap[i] >= '0' && cap[i] <= '9' && heapCap < (1ull << 40); i++) heapCap = heapCap * 10 + (uint64_t)(cap[i] - '0');
    ipcDelayMs = 0;
    if (takeEnv(envp, "LESSONS_STATS_IPC_DELAY", cap, sizeof cap))
        for (int i = 0; cap[i] >= '0' && cap[i] <= '9' && ipcDelayMs < 1000; i++) ipcDelayMs = ipcDelayMs * 10 + (uint64_t)(cap[i] - '0');
    if (ipcDelayMs > 1000) ipcDelayMs = 1000;
    settledQueries = takeEnv(envp, "LESSONS_STATS_SETTLED_QUERIES", cap, sizeof cap) && cap[0] == '1';
    pendingQueries = takeEnv(envp, "LESSONS_STATS_PENDING_QUERIES", cap, sizeof cap) && cap[0] == '1' && !settledQueries;
    failCount = 0;
    if (!takeEnv(envp, "LESSONS_STATS_FAIL", text, sizeof text)) return;
    for (size_t i = 0; text[i] != 0 && failCount < 8;) {
        FailAt& f = failAt[failCount];
        size_t k = 0;
        while (text[i] != 0 && text[i] != ':' && text[i] != ',' && k + 1 < sizeof f.name) f.name[k++] = text[i++];
        f.name[k] = 0;
        uint64_t at = 0;
        if (text[i] == ':') {
            i++;
            while (text[i] >= '0' && text[i] <= '9' && at < 1000000000) at = at * 10 + (uint64_t)(text[i++] - '0');
        }
        while (text[i] != 0 && text[i] != ',') i++;
        if (text[i] == ',') i++;
        if (k > 0 && at > 0) {
            f.at = at;
            f.calls.store(0);
            failCount++;
        }
    }
}

// failNow counts a call of name and says whether it is one to fail. A
// record made with cudaEventRecordWithFlags counts as a cudaEventRecord:
// a hidden run that fails a program's Nth record fails it whichever of
// the two the program calls.
bool failNow(const char* name) {
    static const char flagged[] = "cudaEventRecordWithFlags";
    size_t n = 0;
    while (flagged[n] != 0 && flagged[n] == name[n]) n++;
    if (flagged[n] == 0 && name[n] == 0) name = "cudaEventRecord";
    bool fail = false;
    for (int i = 0; i < failCount; i++) {
        const char* a = failAt[i].name;
        size_t k = 0;
        while (a[k] != 0 && a[k] == name[k]) k++;
        if (a[k] == 0 && name[k] == 0 && failAt[i].calls.fetch_add(1) + 1 == failAt[i].at) fail = true;
    }
    return fail;
}

// heapCapFirst gives the device heap the run's cap at the program's first
// CUDA call, for a program that never sets it (its default is 8 MiB).
void heapCapFirst() {
    if (heapCap == 0) return;
    static auto set = (cudaError_t(*)(cudaLimit, size_t))real("cudaDeviceSetLimit");
    Own own;
    set(cudaLimitMallocHeapSize, (size_t)heapCap);
}

// noteResult counts a failure made by the grader and a call that returned
// the error of a kernel that faulted: an illegal address (700), an assert
// (710), a hardware stack error, an illegal or misaligned instruction or
// address, an invalid PC, a launch failure (714 to 719); the driver's
// codes are the same numbers. Every later call returns it again: the
// context is lost.
void noteResult(int code, bool injected) {
    if (injected) rec->injected_failures++;
    if (code == 700 || code == 710 || (code >= 714 && code <= 719)) rec->device_faults++;
}
// ipcRecorded: a record of an interprocess event tells another process
// when everything the record's stream is ordered after is done: the
// frees of imported memory it covers are signalled.
void ipcRecorded(cudaEvent_t e, cudaStream_t s) {
    if (!ipcEvents->count(e) || importFrees->empty()) return;
    const Clock& c = (*clocks)[norm(s)];
    std::vector<ImportFree> left;
    for (auto& f : *importFrees) {
        auto at = c.find(f.stream);
        if (at == c.end() || at->second < f.seq) left.push_back(f);
        else importSignalled(f.sig);
    }
    importFrees->swap(left);
}
}  // namespace

// A program's own heap size is capped at the run's (heapCap): its asks
// past it are made with the cap.
extern "C" cudaError_t cudaDeviceSetLimit(cudaLimit l, size_t v) {
    static auto fn = (cudaError_t(*)(cudaLimit, size_t))real("cudaDeviceSetLimit");
    HOOK_ENTRY();
    if (heapCap > 0 && l == cudaLimitMallocHeapSize && v > heapCap && !busy()) v = (size_t)heapCap;
    return fn(l, v);
}

// A call the grader made fail (failNow) is not made: it returns 2, which
// is cudaErrorMemoryAllocation and CUDA_ERROR_OUT_OF_MEMORY alike, and the
// hook's body records it as the failure it is.
#define HOOK(ret, name, params, args, body) HOOK_PRE(ret, name, params, args, {}, body)
// HOOK_PRE is HOOK with pre run on the host before the call is made.
#define HOOK_PRE(ret, name, params, args, pre, body)              \
    extern "C" ret name params {                                  \
        InFlight hookInFlight_;                                   \
        pre                                                       \
        uint64_t tl0 = tlNow(); (void)tl0;                        \
        static auto fn = (ret(*) params)real(#name);              \
        static uintptr_t checked = 0;                             \
        if (((uintptr_t)fn ^ hookSecret) != checked) checked = forwardsToCUDA((const void*)fn, #name); \
        followedOrStop();                                         \
        if (busy()) busyFrom(__builtin_return_address(0));       \
        bool failed = failCount > 0 && !busy() && failNow(#name); \
        ret r = failed ? (ret)2 : fn args;                        \
        if (busy()) return r;                                     \
        {                                                         \
            std::lock_guard<Lock> g(mu);                    \
            record();                                             \
            noteResult((int)r, failed);                           \
            CallFailed callFailed_((int)r != 0);                  \
            body                                                  \
        }                                                         \
        after();                                                  \
        return r;                                                 \
    }
