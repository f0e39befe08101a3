// Included by kernels/allocstats.cu at file scope: one translation unit,
// one library (see the list of sections there).
// ---- Graphs ----
//
// A graph launch is timed as one span on the stream it was launched into
// (the graph's kernels are that stream's work, whatever branches they run
// on inside it), counted in graphs_timed and in the kernel figures; the
// kernel nodes of each graph are counted when it is instantiated, and
// added up at each launch (graph_kernel_nodes). An update of an
// instantiated graph (cudaGraphExecUpdate) is not followed.
//
// A graph's memory nodes (cudaGraphAddMemAllocNode, or cudaMallocAsync and
// cudaFreeAsync captured into it) allocate and free at each launch, at an
// address fixed for the life of the node: at each launch the library notes
// the memory the graph allocates (graph_allocs, graph_alloc_bytes) and
// leaves allocated as live on the launch's stream (unless it is still live
// from before: the capture's cudaMallocAsync, or a launch whose memory was
// not freed since), forgets the ranges freed before at those addresses,
// and notes the memory its free nodes free as freed.
namespace {
void graphNodes(cudaGraph_t g, int depth, GraphInfo* gi) {
    static auto getNodes = (cudaError_t(*)(cudaGraph_t, cudaGraphNode_t*, size_t*))real("cudaGraphGetNodes");
    static auto getType = (cudaError_t(*)(cudaGraphNode_t, cudaGraphNodeType*))real("cudaGraphNodeGetType");
    static auto getChild = (cudaError_t(*)(cudaGraphNode_t, cudaGraph_t*))real("cudaGraphChildGraphNodeGetGraph");
    static auto allocParams = (cudaError_t(*)(cudaGraphNode_t, cudaMemAllocNodeParams*))realDriver("cudaGraphMemAllocNodeGetParams");
    static auto freeParams = (cudaError_t(*)(cudaGraphNode_t, void*))realDriver("cudaGraphMemFreeNodeGetParams");
    size_t n = 0;
    if (g == nullptr || depth > 8 || getNodes(g, nullptr, &n) != cudaSuccess || n == 0) return;
    std::vector<cudaGraphNode_t> nodes(n);
    if (getNodes(g, nodes.data(), &n) != cudaSuccess) return;
    for (size_t i = 0; i < n && i < nodes.size(); i++) {
        cudaGraphNodeType t;
        if (getType(nodes[i], &t) != cudaSuccess) continue;
        cudaGraph_t child = nullptr;
        cudaMemAllocNodeParams ap;
        void* freedAt = nullptr;
        if (t == cudaGraphNodeTypeKernel) gi->kernels++;
        else if (t == cudaGraphNodeTypeGraph && getChild(nodes[i], &child) == cudaSuccess) graphNodes(child, depth + 1, gi);
        else if (t == cudaGraphNodeTypeMemAlloc && allocParams != nullptr && allocParams(nodes[i], &ap) == cudaSuccess && ap.dptr != nullptr)
            gi->allocs.push_back({(uintptr_t)ap.dptr, ap.bytesize});
        else if (t == cudaGraphNodeTypeMemFree && freeParams != nullptr && freeParams(nodes[i], &freedAt) == cudaSuccess && freedAt != nullptr)
            gi->frees.push_back((uintptr_t)freedAt);
    }
}

// instantiated notes what a graph made executable does at each launch.
void instantiated(cudaError_t r, cudaGraphExec_t* e, cudaGraph_t g) {
    if (r != cudaSuccess || e == nullptr || busy()) return;
    GraphInfo gi;
    {
        Own own;
        KeepLastError keep;
        graphNodes(g, 0, &gi);
    }
    std::lock_guard<Lock> lock(mu);
    record();
    rec->graph_execs_made++;
    (*graphs)[*e] = gi;
}

// graphLaunched notes the memory a launch of graph gi on stream s
// allocates and frees (see above); mu is held.
void graphLaunched(const GraphInfo& gi, cudaStream_t s) {
    // An address the graph allocates more often than it frees is left
    // allocated (a graph may give one address to allocations whose
    // lifetimes do not overlap).
    std::map<uintptr_t, int> net;
    for (auto& a : gi.allocs) net[a.first]++;
    for (uintptr_t f : gi.frees) net[f]--;
    tlGraph(s, gi.kernels, gi.allocs.size());
    std::map<uintptr_t, size_t> sizes;
    for (auto& a : gi.allocs) {
        rec->graph_allocs++;
        rec->graph_alloc_bytes += a.second;
        sizes[a.first] = a.second;
        reused(a.first, a.second);
        if (net[a.first] <= 0) continue;
        auto it = live->find(a.first);
        if (it != live->end() && it->second.bytes == a.second) {
            // Left by the capture's cudaMallocAsync: the graph's work
            // uses it inside the launch, which is what orders it now.
            // Left by an earlier launch: this launch frees it before
            // allocating it again (a graph instantiated to free on
            // launch), after the uses ordered before the launch.
            if (it->second.origin == kGraph) {
                rec->graph_relaunch_frees++;
                orderedFree(it->second, s, "a launch of its graph");
            }
            it->second.uses.clear();
            it->second.origin = kGraph;
            it->second.stream = norm(s);
            it->second.seq = order(s);
            continue;
        }
        added((void*)a.first, a.second, s, true, kGraph);
    }
    char how[64];
    snprintf(how, sizeof how, "a free node of a graph launched on stream %d", number(s));
    for (uintptr_t f : gi.frees) {
        if (net[f] > 0) continue;
        size_t bytes = sizes.count(f) ? sizes[f] : 0;
        auto it = live->find(f);
        if (it != live->end()) {
            bytes = it->second.bytes;
            orderedFree(it->second, s, "a free node of a graph launched");
            if (it->second.origin != kImported) {
                rec->live_allocs--;
                rec->live_bytes -= it->second.bytes;
            }
            live->erase(it);
        }
        if (bytes > 0) forget(f, bytes, how);
    }
}
}  // namespace

// Declared with plain types and named by asm labels: cudaGraphInstantiate
// took five arguments before CUDA 12 and three since.
#if CUDART_VERSION >= 12000
extern "C" cudaError_t lessonsGraphInstantiate(cudaGraphExec_t* e, cudaGraph_t g, unsigned long long f) __asm__("cudaGraphInstantiate");
extern "C" cudaError_t lessonsGraphInstantiate(cudaGraphExec_t* e, cudaGraph_t g, unsigned long long f) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t*, cudaGraph_t, unsigned long long))real("cudaGraphInstantiate");
    HOOK_ENTRY();
    cudaError_t r = fn(e, g, f);
    instantiated(r, e, g);
    return r;
}
extern "C" cudaError_t lessonsGraphInstantiateParams(cudaGraphExec_t* e, cudaGraph_t g, void* params) __asm__("cudaGraphInstantiateWithParams");
extern "C" cudaError_t lessonsGraphInstantiateParams(cudaGraphExec_t* e, cudaGraph_t g, void* params) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t*, cudaGraph_t, void*))real("cudaGraphInstantiateWithParams");
    HOOK_ENTRY();
    cudaError_t r = fn(e, g, params);
    instantiated(r, e, g);
    return r;
}
#else
extern "C" cudaError_t lessonsGraphInstantiate(cudaGraphExec_t* e, cudaGraph_t g, cudaGraphNode_t* en, char* log, size_t n) __asm__("cudaGraphInstantiate");
extern "C" cudaError_t lessonsGraphInstantiate(cudaGraphExec_t* e, cudaGraph_t g, cudaGraphNode_t* en, char* log, size_t n) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t*, cudaGraph_t, cudaGraphNode_t*, char*, size_t))real("cudaGraphInstantiate");
    HOOK_ENTRY();
    cudaError_t r = fn(e, g, en, log, n);
    instantiated(r, e, g);
    return r;
}
#endif
extern "C" cudaError_t lessonsGraphInstantiateFlags(cudaGraphExec_t* e, cudaGraph_t g, unsigned long long f) __asm__("cudaGraphInstantiateWithFlags");
extern "C" cudaError_t lessonsGraphInstantiateFlags(cudaGraphExec_t* e, cudaGraph_t g, unsigned long long f) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t*, cudaGraph_t, unsigned long long))real("cudaGraphInstantiateWithFlags");
    HOOK_ENTRY();
    cudaError_t r = fn(e, g, f);
    instantiated(r, e, g);
    return r;
}
HOOK(cudaError_t, cudaGraphExecDestroy, (cudaGraphExec_t e), (e), { graphs->erase(e); })

extern "C" cudaError_t lessonsGraphLaunch(cudaGraphExec_t e, cudaStream_t s) __asm__("cudaGraphLaunch");
extern "C" cudaError_t lessonsGraphLaunch(cudaGraphExec_t e, cudaStream_t s) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t, cudaStream_t))real("cudaGraphLaunch");
    HOOK_ENTRY();
    if (busy()) return fn(e, s);
    Timed t = startTiming(s, true);
    cudaError_t r = fn(e, s);
    endTiming(t, r == cudaSuccess);
    {
        std::lock_guard<Lock> lock(mu);
        record();
        if (r == cudaSuccess) {
            rec->graph_launches++;
            auto g = graphs->find(e);
            if (g != graphs->end()) {
                rec->graph_kernel_nodes += g->second.kernels;
                // A launch into a stream being captured runs when that
                // graph does.
                if (!t.captured) graphLaunched(g->second, s);
            }
        }
        tlTimed(r == cudaSuccess ? t.start : nullptr);
    }
    after();
    return r;
}
