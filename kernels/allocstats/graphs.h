// Included by kernels/allocstats.cu at file scope: one translation unit,
// one library (see the list of sections there).
// ---- Graphs ----
//
// A graph launch is timed as one span on the stream it was launched into
// (the graph's kernels are that stream's work, whatever branches they run
// on inside it), counted in graphs_timed and in the kernel figures; the
// kernel nodes of each graph are counted when it is instantiated, and
// added up at each launch (graph_kernel_nodes).
//
// What a graph's kernel, memcpy and memset nodes touch is learnt when it
// is instantiated: each kernel node's pointer-sized words of its
// parameters (as a <<< >>> launch's are read, the driver describing the
// kernel), each memcpy's and memset's ranges. At each launch they are
// uses of that memory by one operation of the launch's stream: judged for
// unordered uses, uses after free and copies past the end as a launch on
// that stream is. The graph orders its own nodes; what is judged is the
// order against other streams. A node made by stream capture is judged
// so too, at each launch, and not when it is captured: a capture queues
// nothing on its streams, and its events and waits are edges of the
// graph, not an order of those streams' work (captureOf, captureRecords:
// a stream from cudaStreamBeginCapture to cudaStreamEndCapture, with the
// streams a wait for an event recorded in the capture drew in). So a
// graph captured on s and launched on another stream is judged as that
// stream's work, whatever s did before the capture.
// cudaGraphExecKernelNodeSetParams (or the memcpy and memset kin) gives
// a node new parameters in the executable graph, which are then judged
// at each launch. A pointer into the graph's own allocations is
// the memory nodes' to judge (below), not its nodes' uses. An update by
// cudaGraphExecUpdate reads the nodes of the graph it gives again (below);
// one by cudaGraphExecNodeSetParams, cudaGraphExecEventRecordNodeSetEvent
// or its wait kin, or the driver's cuGraphExec* calls, is not followed,
// nor are the bodies of conditional nodes (CUDA 12.3): a use missed, as
// before graphs' nodes were judged at all.
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
// The driver's kernel node parameters (CUDA_KERNEL_NODE_PARAMS_v2 of
// CUDA 12 and 13), declared here: the library is built against the
// toolkit of the machine, CUDA 11's header has only the first fields.
struct DriverKernelNode {
    void* func;
    unsigned grid[3], block[3], shared;
    void** kernelParams;
    void** extra;
    void* kern;
    void* ctx;
};

// nodeKernel describes the kernel of node, func its runtime's answer: a
// host stub (cudaGraphAddKernelNode's), or else the driver's CUfunction or
// CUkernel of the node. mu is not held.
const Kernel* nodeKernel(cudaGraphNode_t node, const void* func) {
    const Kernel* k = func != nullptr ? describeKernel(func, false) : nullptr;
    if (k != nullptr && k->known) return k;
    static auto params = (CUresult(*)(cudaGraphNode_t, DriverKernelNode*))realDriver("cuGraphKernelNodeGetParams_v2");
    DriverKernelNode d = {};
    if (params == nullptr || params(node, &d) != CUDA_SUCCESS) return k;
    if (d.func != nullptr) return describeKernel(d.func, false, true);
    if (d.kern != nullptr) return describeKernel(d.kern, true);
    return k;
}

// kernelNode is what kernel node (its kernel k, its parameters args) uses.
NodeUses kernelNode(cudaGraphNode_t node, const Kernel* k, void** args) {
    // insert, not +: one more method would be one more import a program
    // could define (internal/exercise/imports_test.go).
    std::string what(" in a graph");
    what.insert(0, k != nullptr ? k->name.c_str() : "a kernel");
    NodeUses u{node, what, false, {}};
    if (k == nullptr || !k->known || args == nullptr) return u;
    for (size_t i = 0; i < k->params.size(); i++) {
        const char* value = (const char*)args[i];
        for (size_t w = 0; value != nullptr && w + sizeof(uintptr_t) <= k->params[i].second; w += sizeof(uintptr_t)) {
            uintptr_t v;
            memcpy(&v, value + w, sizeof v);
            if (v != 0) u.touches.push_back(NodeTouch{v, 0, kKernel});
        }
    }
    return u;
}

// copySide is the range a 3D copy's side spans (0 bytes: an array's, or
// none).
NodeTouch copySide(const cudaPitchedPtr& p, const cudaPos& at, const cudaExtent& e, int kind) {
    if (p.ptr == nullptr || e.width == 0 || e.height == 0 || e.depth == 0) return NodeTouch{0, 0, kind};
    size_t pitch = p.pitch < e.width ? e.width : p.pitch, rows = p.ysize < e.height ? e.height : p.ysize;
    uintptr_t start = (uintptr_t)p.ptr + at.z * pitch * rows + at.y * pitch + at.x;
    size_t span = (e.depth - 1) * pitch * rows + (e.height - 1) * pitch + e.width;
    return NodeTouch{start, start + span, kind};
}

NodeUses memcpyNode(cudaGraphNode_t node, const cudaMemcpy3DParms& m) {
    NodeUses u{node, "a graph's memcpy node", true, {}};
    NodeTouch d = copySide(m.dstPtr, m.dstPos, m.extent, kWrite), src = copySide(m.srcPtr, m.srcPos, m.extent, kRead);
    if (m.dstArray == nullptr && d.end > d.addr) u.touches.push_back(d);
    if (m.srcArray == nullptr && src.end > src.addr) u.touches.push_back(src);
    return u;
}

NodeUses memsetNode(cudaGraphNode_t node, const cudaMemsetParams& m) {
    NodeUses u{node, "a graph's memset node", true, {}};
    size_t row = m.width * (m.elementSize == 0 ? 1 : m.elementSize);
    size_t span = m.height <= 1 ? row : m.pitch * (m.height - 1) + row;
    if (m.dst != nullptr && span > 0) u.touches.push_back(NodeTouch{(uintptr_t)m.dst, (uintptr_t)m.dst + span, kWrite});
    return u;
}

// nodeUses adds what node (of type t) touches at each launch to gi; mu is
// not held.
void nodeUses(cudaGraphNode_t node, cudaGraphNodeType t, GraphInfo* gi) {
    static auto kernelParams = (cudaError_t(*)(cudaGraphNode_t, cudaKernelNodeParams*))realDriver("cudaGraphKernelNodeGetParams");
    static auto memcpyParams = (cudaError_t(*)(cudaGraphNode_t, cudaMemcpy3DParms*))realDriver("cudaGraphMemcpyNodeGetParams");
    static auto memsetParams = (cudaError_t(*)(cudaGraphNode_t, cudaMemsetParams*))realDriver("cudaGraphMemsetNodeGetParams");
    if (t == cudaGraphNodeTypeKernel) {
        cudaKernelNodeParams kp = {};
        void* func = nullptr;
        void** args = nullptr;
        if (kernelParams != nullptr && kernelParams(node, &kp) == cudaSuccess) { func = kp.func; args = kp.kernelParams; }
        if (args == nullptr) {
            // Described by the driver alone (a node the runtime cannot name).
            static auto params = (CUresult(*)(cudaGraphNode_t, DriverKernelNode*))realDriver("cuGraphKernelNodeGetParams_v2");
            DriverKernelNode d = {};
            if (params != nullptr && params(node, &d) == CUDA_SUCCESS) args = d.kernelParams;
        }
        gi->nodes.push_back(kernelNode(node, nodeKernel(node, func), args));
    } else if (t == cudaGraphNodeTypeMemcpy) {
        cudaMemcpy3DParms m = {};
        if (memcpyParams != nullptr && memcpyParams(node, &m) == cudaSuccess) gi->nodes.push_back(memcpyNode(node, m));
    } else if (t == cudaGraphNodeTypeMemset) {
        cudaMemsetParams m = {};
        if (memsetParams != nullptr && memsetParams(node, &m) == cudaSuccess) gi->nodes.push_back(memsetNode(node, m));
    }
}

// Kernel node parameters handed to the program. The runtime reference
// says of cudaGraphKernelNodeGetParams: "The kernelParams or extra array
// returned in pNodeParams, as well as the argument values it points to,
// are owned by the node. This memory remains valid until the node is
// destroyed or its parameters are modified, and should not be modified
// directly. Use cudaGraphKernelNodeSetParams to update the parameters of
// this node" (or a copy with an array of its own, to
// cudaGraphExecKernelNodeSetParams). A program that writes an argument
// in place (review/blind5's and blind23's *(int*)p.kernelParams[3] = k)
// changes the graph behind the runtime's back, and its output is the
// solution's. So the hook below hands out the
// library's own copy of the node's array and argument bytes (the kernel
// described by the driver: each argument's size), one per node, refreshed
// at each call, and keeps what it handed out: a copy found changed (at the
// next call naming the node, or a graph launch) counts in
// graph_node_params_written, and is taken as handed out again. Nothing
// else changes: the copy holds the node's values, the driver copies what
// a set-params call points at, and reading it is what the runtime's own
// memory would give. The library's own reads of nodes call the runtime
// directly (realDriver), not this hook.
struct Handed {
    size_t count = 0, bytes = 0;
    void** array = nullptr;        // the array handed out: count entries into values
    char* values = nullptr;        // the arguments' bytes, at their offsets
    void** arrayWas = nullptr;     // array as handed out
    char* valuesWas = nullptr;     // values as handed out
};
std::map<cudaGraphNode_t, Handed*>* handed;

// handedChanged says whether the program wrote h since it was handed out
// (volatile reads: no memcmp call), and takes it as handed out now. mu is
// held.
bool handedChanged(Handed* h) {
    bool changed = false;
    void* volatile* a = h->array;
    volatile char* v = h->values;
    for (size_t i = 0; i < h->count; i++)
        if (a[i] != h->arrayWas[i]) changed = true;
    for (size_t i = 0; i < h->bytes; i++)
        if (v[i] != h->valuesWas[i]) changed = true;
    if (changed) {
        ownCopy(h->arrayWas, h->array, h->count * sizeof(void*));
        ownCopy(h->valuesWas, h->values, h->bytes);
    }
    return changed;
}

// handedWritten counts the handed-out parameters the program wrote since
// they were handed out (or last found written): every node's, or node's
// alone. mu is held.
void handedWritten(cudaGraphNode_t node = nullptr) {
    if (handed == nullptr) return;
    for (auto& h : *handed)
        if ((node == nullptr || h.first == node) && handedChanged(h.second)) rec->graph_node_params_written++;
}

// eventNode adds the event of an event wait or event record node (of
// type t) to gi; mu is not held. A captured one too: a capture's own
// records and waits order nothing outside the graph (captureOf), so the
// nodes they left (a wait for an event recorded outside the capture, a
// record of an external event) are followed at each launch.
void eventNode(cudaGraphNode_t node, cudaGraphNodeType t, GraphInfo* gi) {
    static auto waitEvent = (cudaError_t(*)(cudaGraphNode_t, cudaEvent_t*))realDriver("cudaGraphEventWaitNodeGetEvent");
    static auto recordEvent = (cudaError_t(*)(cudaGraphNode_t, cudaEvent_t*))realDriver("cudaGraphEventRecordNodeGetEvent");
    cudaEvent_t e = nullptr;
    if (t == cudaGraphNodeTypeWaitEvent && waitEvent != nullptr && waitEvent(node, &e) == cudaSuccess && e != nullptr) gi->waits.push_back(e);
    if (t == cudaGraphNodeTypeEventRecord && recordEvent != nullptr && recordEvent(node, &e) == cudaSuccess && e != nullptr) gi->records.push_back(e);
}

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
        if (t == cudaGraphNodeTypeKernel || t == cudaGraphNodeTypeMemcpy || t == cudaGraphNodeTypeMemset) nodeUses(nodes[i], t, gi);
        if (t == cudaGraphNodeTypeWaitEvent || t == cudaGraphNodeTypeEventRecord) eventNode(nodes[i], t, gi);
        if (t == cudaGraphNodeTypeKernel) gi->kernels++;
        else if (t == cudaGraphNodeTypeGraph && getChild(nodes[i], &child) == cudaSuccess) graphNodes(child, depth + 1, gi);
        else if (t == cudaGraphNodeTypeMemAlloc && allocParams != nullptr && allocParams(nodes[i], &ap) == cudaSuccess && ap.dptr != nullptr)
            gi->allocs.push_back({(uintptr_t)ap.dptr, ap.bytesize});
        else if (t == cudaGraphNodeTypeMemFree && freeParams != nullptr && freeParams(nodes[i], &freedAt) == cudaSuccess && freedAt != nullptr)
            gi->frees.push_back((uintptr_t)freedAt);
    }
}

void nodesOf(cudaGraph_t g, int depth, std::vector<cudaGraphNode_t>* out);

// depsOf lists the nodes node depends on (CUDA 13 added edge data to the
// call); mu is not held.
std::vector<cudaGraphNode_t> depsOf(cudaGraphNode_t node) {
#if CUDART_VERSION >= 13000
    static auto fn = (cudaError_t(*)(cudaGraphNode_t, cudaGraphNode_t*, void*, size_t*))real("cudaGraphNodeGetDependencies");
    size_t n = 0;
    if (fn == nullptr || fn(node, nullptr, nullptr, &n) != cudaSuccess || n == 0) return {};
    std::vector<cudaGraphNode_t> d(n);
    if (fn(node, d.data(), nullptr, &n) != cudaSuccess) return {};
#else
    static auto fn = (cudaError_t(*)(cudaGraphNode_t, cudaGraphNode_t*, size_t*))real("cudaGraphNodeGetDependencies");
    size_t n = 0;
    if (fn == nullptr || fn(node, nullptr, &n) != cudaSuccess || n == 0) return {};
    std::vector<cudaGraphNode_t> d(n);
    if (fn(node, d.data(), &n) != cudaSuccess) return {};
#endif
    d.resize(n);
    return d;
}

// ownOrder judges a graph's own memory against its edges, once, when it
// is made executable: a node that uses memory of one of the graph's
// allocation nodes must come after that node (a path of dependencies
// from it), and before the graph's free node of that memory, as CUDA
// asks. Two branches of a capture with no event between them, one
// allocating and the other using, are no order (verify's mutants
// other-stream@168/s2 and @169/s passed every check on the H200 while
// the graph's own memory was left to its memory nodes). Only the graph's
// top-level nodes are judged (a child graph's edges are its own); mu is
// not held.
void ownOrder(cudaGraph_t g, GraphInfo* gi) {
    static auto getNodes = (cudaError_t(*)(cudaGraph_t, cudaGraphNode_t*, size_t*))real("cudaGraphGetNodes");
    static auto getType = (cudaError_t(*)(cudaGraphNode_t, cudaGraphNodeType*))real("cudaGraphNodeGetType");
    static auto allocParams = (cudaError_t(*)(cudaGraphNode_t, cudaMemAllocNodeParams*))realDriver("cudaGraphMemAllocNodeGetParams");
    static auto freeParams = (cudaError_t(*)(cudaGraphNode_t, void*))realDriver("cudaGraphMemFreeNodeGetParams");
    size_t n = 0;
    if (g == nullptr || getNodes(g, nullptr, &n) != cudaSuccess || n == 0 || n > 4096) return;
    std::vector<cudaGraphNode_t> nodes(n);
    if (getNodes(g, nodes.data(), &n) != cudaSuccess) return;
    nodes.resize(n);
    std::set<cudaGraphNode_t> top(nodes.begin(), nodes.end());
    struct Mem { cudaGraphNode_t node; uintptr_t addr; size_t bytes; };
    std::vector<Mem> allocs, frees;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType t;
        if (getType(node, &t) != cudaSuccess) continue;
        cudaMemAllocNodeParams ap;
        void* at = nullptr;
        if (t == cudaGraphNodeTypeMemAlloc && allocParams != nullptr && allocParams(node, &ap) == cudaSuccess && ap.dptr != nullptr)
            allocs.push_back({node, (uintptr_t)ap.dptr, ap.bytesize});
        else if (t == cudaGraphNodeTypeMemFree && freeParams != nullptr && freeParams(node, &at) == cudaSuccess && at != nullptr)
            frees.push_back({node, (uintptr_t)at, 0});
    }
    if (allocs.empty()) return;
    // Each node's ancestors, found once.
    std::map<cudaGraphNode_t, std::set<cudaGraphNode_t>> above;
    auto ancestors = [&](cudaGraphNode_t node) -> const std::set<cudaGraphNode_t>& {
        auto it = above.find(node);
        if (it != above.end()) return it->second;
        std::set<cudaGraphNode_t>& seen = above[node];
        std::vector<cudaGraphNode_t> todo{node};
        while (!todo.empty()) {
            cudaGraphNode_t x = todo.back();
            todo.pop_back();
            for (cudaGraphNode_t d : depsOf(x))
                if (seen.insert(d).second) todo.push_back(d);
        }
        return seen;
    };
    for (auto& u : gi->nodes) {
        if (top.count(u.node) == 0) continue;
        bool late = false, early = false;
        for (auto& t : u.touches) {
            for (auto& a : allocs) {
                if (t.addr < a.addr || t.addr >= a.addr + a.bytes) continue;
                if (!late && ancestors(u.node).count(a.node) == 0) {
                    late = true;
                    if (gi->ownUseRace[0] == 0)
                        snprintf(gi->ownUseRace, sizeof gi->ownUseRace, "%s uses memory of the graph's allocation node with no edge ordering it after that node", u.what.c_str());
                }
                for (auto& f : frees)
                    if (f.addr == a.addr && !early && ancestors(f.node).count(u.node) == 0) {
                        early = true;
                        if (gi->ownFreeRace[0] == 0)
                            snprintf(gi->ownFreeRace, sizeof gi->ownFreeRace, "the graph's free node of memory that %s uses, with no edge ordering the free after that use", u.what.c_str());
                    }
            }
        }
        gi->ownUnorderedUses += late;
        gi->ownUnorderedFrees += early;
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
        nodesOf(g, 0, &gi.order);
        ownOrder(g, &gi);
    }
    std::lock_guard<Lock> lock(mu);
    record();
    rec->graph_execs_made++;
    (*graphs)[*e] = gi;
}

// ownMemory says whether [a, a+1) lies in one of graph gi's allocations.
bool ownMemory(const GraphInfo& gi, uintptr_t a) {
    for (auto& al : gi.allocs)
        if (a >= al.first && a < al.first + al.second) return true;
    return false;
}

// graphUses judges what the nodes of graph gi touch, at its launch on
// stream s, as one operation of s; mu is held. Before the launch's memory
// nodes: memory a free node of the graph frees is used before that free.
void graphUses(const GraphInfo& gi, cudaStream_t s) {
    if (gi.nodes.empty()) return;
    uint64_t seq = order(s);
    for (auto& n : gi.nodes) {
        bool past = false;
        for (auto& t : n.touches) {
            if (ownMemory(gi, t.addr)) continue;
            if (!n.copy) {
                kernelUse(t.addr, n.what, s, seq);
                continue;
            }
            past = past || pastEnd((const void*)t.addr, t.end - t.addr);
            touch((const void*)t.addr, t.end - t.addr, (UseKind)t.kind, s, seq, false, true, n.what.c_str());
        }
        if (past) rec->copies_past_end++;
    }
}

// graphWaits orders a launch of graph gi on stream s after the work its
// event wait nodes wait for, as cudaStreamWaitEvent would: all of it
// before any of the launch's nodes (a node the graph runs before its
// wait is taken as after it: a race missed, never one made up). Before,
// such a graph's nodes raced the work they waited for. mu is held.
void graphWaits(const GraphInfo& gi, cudaStream_t s) {
    for (cudaEvent_t e : gi.waits) {
        auto ev = events->find(e);
        if (ev != events->end()) join((*clocks)[norm(s)], ev->second);
    }
}

// graphRecords records the events of graph gi's event record nodes at the
// end of its launch on stream s, as cudaEventRecord would after it (a
// stream that waits for one is ordered after the whole launch). mu is
// held.
void graphRecords(const GraphInfo& gi, cudaStream_t s) {
    if (gi.records.empty()) return;
    if (recordedOn == nullptr) recordedOn = new RecordedOn();
    for (cudaEvent_t e : gi.records) {
        (*events)[e] = (*clocks)[norm(s)];
        (*recordedOn)[e] = norm(s);
    }
}

// graphLaunched judges what the nodes of a launch of graph gi on stream
// s touch, then notes the memory it allocates and frees (see above); mu
// is held. The launch comes after the graph's previous launch, whatever
// stream that was on (gi.last): before, a graph launched on one stream
// and then on another raced itself.
void graphLaunched(GraphInfo& gi, cudaStream_t s) {
    join((*clocks)[norm(s)], gi.last);
    // An address the graph allocates more often than it frees is left
    // allocated (a graph may give one address to allocations whose
    // lifetimes do not overlap).
    std::map<uintptr_t, int> net;
    for (auto& a : gi.allocs) net[a.first]++;
    for (uintptr_t f : gi.frees) net[f]--;
    tlGraph(s, gi.kernels, gi.allocs.size());
    graphWaits(gi, s);
    graphUses(gi, s);   // a finding is the launch's (traced just now)
    if (gi.ownUnorderedUses > 0) {
        rec->unordered_uses += gi.ownUnorderedUses;
        noteRace(rec->use_race, sizeof rec->use_race, gi.ownUseRace);
    }
    if (gi.ownUnorderedFrees > 0) {
        rec->unordered_frees += gi.ownUnorderedFrees;
        noteRace(rec->free_race, sizeof rec->free_race, gi.ownFreeRace);
    }
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
    graphRecords(gi, s);
    gi.last = (*clocks)[norm(s)];
    // Until it has run, the launch holds its graph memory, and what its
    // free nodes free (trims_unwaited); a graph with no memory nodes holds
    // nothing a trim gives back.
    if (!gi.allocs.empty() || !gi.frees.empty()) holdsUntil(s, true);
    if (!gi.frees.empty()) holdsUntil(s, false);
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
            handedWritten();
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

// ---- Stream capture, and nodes given new parameters ----
namespace {
// nodesOf lists the nodes of graph g and of its child graphs; mu is not
// held.
void nodesOf(cudaGraph_t g, int depth, std::vector<cudaGraphNode_t>* out) {
    static auto getNodes = (cudaError_t(*)(cudaGraph_t, cudaGraphNode_t*, size_t*))real("cudaGraphGetNodes");
    static auto getType = (cudaError_t(*)(cudaGraphNode_t, cudaGraphNodeType*))real("cudaGraphNodeGetType");
    static auto getChild = (cudaError_t(*)(cudaGraphNode_t, cudaGraph_t*))real("cudaGraphChildGraphNodeGetGraph");
    size_t n = 0;
    if (g == nullptr || depth > 8 || getNodes(g, nullptr, &n) != cudaSuccess || n == 0) return;
    std::vector<cudaGraphNode_t> nodes(n);
    if (getNodes(g, nodes.data(), &n) != cudaSuccess) return;
    for (size_t i = 0; i < n && i < nodes.size(); i++) {
        out->push_back(nodes[i]);
        cudaGraphNodeType t;
        cudaGraph_t child = nullptr;
        if (getType(nodes[i], &t) == cudaSuccess && t == cudaGraphNodeTypeGraph && getChild(nodes[i], &child) == cudaSuccess)
            nodesOf(child, depth + 1, out);
    }
}

// captureEnded forgets the capture begun on stream s: its streams queue
// work of their own again, and the events recorded in it keep what their
// last real record covers. mu is held.
void captureEnded(cudaStream_t s) {
    auto c = captureOf->find(norm(s));
    cudaStream_t origin = c != captureOf->end() ? c->second : norm(s);
    for (auto it = captureOf->begin(); it != captureOf->end();)
        it = it->second == origin ? captureOf->erase(it) : std::next(it);
    for (auto it = captureRecords->begin(); it != captureRecords->end();)
        it = it->second == origin ? captureRecords->erase(it) : std::next(it);
}

// execNodeSet replaces, in executable graph e, what node touches at each
// launch by u (a captured node's new parameters are judged from now on).
void execNodeSet(cudaGraphExec_t e, const NodeUses& u) {
    std::lock_guard<Lock> lock(mu);
    record();
    auto g = graphs->find(e);
    if (g == graphs->end()) return;
    for (auto& n : g->second.nodes)
        if (n.node == u.node) {
            n = u;
            return;
        }
    g->second.nodes.push_back(u);
}
}  // namespace

extern "C" cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode m) {
    static auto fn = (cudaError_t(*)(cudaStream_t, cudaStreamCaptureMode))real("cudaStreamBeginCapture");
    HOOK_ENTRY();
    cudaError_t r = fn(s, m);
    if (r == cudaSuccess && !busy()) {
        std::lock_guard<Lock> lock(mu);
        record();
        (*captureOf)[norm(s)] = norm(s);
    }
    return r;
}
// A capture ends whatever the answer (an invalidated capture too).
extern "C" cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* g) {
    static auto fn = (cudaError_t(*)(cudaStream_t, cudaGraph_t*))real("cudaStreamEndCapture");
    HOOK_ENTRY();
    cudaError_t r = fn(s, g);
    if (!busy()) {
        std::lock_guard<Lock> lock(mu);
        record();
        captureEnded(s);
    }
    return r;
}
// The driver's capture, as the runtime's (the driver's events and waits
// are not followed: a stream a capture draws in by a driver wait is
// judged as its own).
extern "C" CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode m) {
    static auto fn = (CUresult(*)(CUstream, CUstreamCaptureMode))realDriver("cuStreamBeginCapture_v2");
    HOOK_ENTRY();
    if (fn == nullptr) return CUDA_ERROR_NOT_FOUND;
    CUresult r = fn(s, m);
    if (r == CUDA_SUCCESS && !busy()) {
        std::lock_guard<Lock> lock(mu);
        record();
        (*captureOf)[norm((cudaStream_t)s)] = norm((cudaStream_t)s);
    }
    return r;
}
extern "C" CUresult cuStreamEndCapture(CUstream s, CUgraph* g) {
    static auto fn = (CUresult(*)(CUstream, CUgraph*))realDriver("cuStreamEndCapture");
    HOOK_ENTRY();
    if (fn == nullptr) return CUDA_ERROR_NOT_FOUND;
    CUresult r = fn(s, g);
    if (!busy()) {
        std::lock_guard<Lock> lock(mu);
        record();
        captureEnded((cudaStream_t)s);
    }
    return r;
}
// cudaGraphKernelNodeGetParams hands out the library's copy of the node's
// arguments (Handed, above).
extern "C" cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t n, cudaKernelNodeParams* p) {
    static auto fn = (cudaError_t(*)(cudaGraphNode_t, cudaKernelNodeParams*))real("cudaGraphKernelNodeGetParams");
    HOOK_ENTRY();
    cudaError_t r = fn(n, p);
    if (r != cudaSuccess || p == nullptr || p->kernelParams == nullptr || busy()) return r;
    const Kernel* k;
    {
        Own own;
        KeepLastError keep;
        k = nodeKernel(n, p->func);
    }
    if (k == nullptr || !k->known || k->params.empty()) return r;
    size_t bytes = 0;
    for (auto& a : k->params) bytes = a.first + a.second > bytes ? a.first + a.second : bytes;
    std::lock_guard<Lock> lock(mu);
    record();
    if (handed == nullptr) handed = new std::map<cudaGraphNode_t, Handed*>;
    Handed*& h = (*handed)[n];
    if (h != nullptr && handedChanged(h)) rec->graph_node_params_written++;
    if (h == nullptr || h->count != k->params.size() || h->bytes != bytes) {
        // A node given a kernel of another shape: a new copy (the old one,
        // which the program may still hold, is left as it is).
        h = new Handed;
        h->count = k->params.size();
        h->bytes = bytes;
        // operator new, not new[]: no import more (TestLibraryImports).
        h->array = (void**)operator new(h->count * sizeof(void*));
        h->arrayWas = (void**)operator new(h->count * sizeof(void*));
        h->values = (char*)operator new(bytes);
        h->valuesWas = (char*)operator new(bytes);
        // Zeroed once, when made: a refresh writes each argument over
        // its own bytes, and a thread still reading the array an earlier
        // call handed out never sees an argument zeroed in between.
        ownFill(h->values, 0, bytes);
    }
    for (size_t i = 0; i < h->count; i++) {
        h->array[i] = h->values + k->params[i].first;
        if (p->kernelParams[i] != nullptr) ownCopy(h->values + k->params[i].first, p->kernelParams[i], k->params[i].second);
    }
    ownCopy(h->arrayWas, h->array, h->count * sizeof(void*));
    ownCopy(h->valuesWas, h->values, bytes);
    p->kernelParams = h->array;
    return r;
}
extern "C" cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const cudaKernelNodeParams* p) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t, cudaGraphNode_t, const cudaKernelNodeParams*))real("cudaGraphExecKernelNodeSetParams");
    HOOK_ENTRY();
    cudaError_t r = fn(e, n, p);
    if (r != cudaSuccess || p == nullptr || busy()) return r;
    NodeUses u;
    {
        Own own;
        KeepLastError keep;
        u = kernelNode(n, nodeKernel(n, p->func), p->kernelParams);
    }
    execNodeSet(e, u);
    std::lock_guard<Lock> lock(mu);
    record();
    handedWritten(n);
    return r;
}
extern "C" cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const cudaMemcpy3DParms* p) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t, cudaGraphNode_t, const cudaMemcpy3DParms*))real("cudaGraphExecMemcpyNodeSetParams");
    HOOK_ENTRY();
    cudaError_t r = fn(e, n, p);
    if (r == cudaSuccess && p != nullptr && !busy()) execNodeSet(e, memcpyNode(n, *p));
    return r;
}
extern "C" cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t e, cudaGraphNode_t n, void* d, const void* src, size_t count, cudaMemcpyKind k) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t, cudaGraphNode_t, void*, const void*, size_t, cudaMemcpyKind))real("cudaGraphExecMemcpyNodeSetParams1D");
    HOOK_ENTRY();
    cudaError_t r = fn(e, n, d, src, count, k);
    if (r != cudaSuccess || busy()) return r;
    NodeUses u{n, "a graph's memcpy node", true, {}};
    if (d != nullptr && count > 0) u.touches.push_back(NodeTouch{(uintptr_t)d, (uintptr_t)d + count, kWrite});
    if (src != nullptr && count > 0) u.touches.push_back(NodeTouch{(uintptr_t)src, (uintptr_t)src + count, kRead});
    execNodeSet(e, u);
    return r;
}
extern "C" cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const cudaMemsetParams* p) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t, cudaGraphNode_t, const cudaMemsetParams*))real("cudaGraphExecMemsetNodeSetParams");
    HOOK_ENTRY();
    cudaError_t r = fn(e, n, p);
    if (r == cudaSuccess && p != nullptr && !busy()) execNodeSet(e, memsetNode(n, *p));
    return r;
}

// cudaGraphExecUpdate gives an executable graph the parameters of graph g
// (of the same shape: its memory nodes cannot change): what its nodes
// touch is read again from g. Declared with plain types and named by an
// asm label: it took four arguments before CUDA 12 and three since.
namespace {
// The executable graph's nodes keep the names of the graph it was made
// from (cudaGraphExecKernelNodeSetParams and its kin name them so after an
// update too): node i of g is node i of that graph, as an update needs
// the same nodes in the same order. Before, they took g's names, and a
// node given new parameters after an update was judged twice, its old
// parameters as well.
void execUpdated(cudaError_t r, cudaGraphExec_t e, cudaGraph_t g) {
    if (r != cudaSuccess || busy()) return;
    GraphInfo gi;
    std::vector<cudaGraphNode_t> now;
    {
        Own own;
        KeepLastError keep;
        graphNodes(g, 0, &gi);
        nodesOf(g, 0, &now);
    }
    std::lock_guard<Lock> lock(mu);
    record();
    auto it = graphs->find(e);
    if (it == graphs->end()) return;
    if (now.size() == it->second.order.size()) {
        std::map<cudaGraphNode_t, cudaGraphNode_t> named;
        for (size_t i = 0; i < now.size(); i++) named[now[i]] = it->second.order[i];
        for (auto& n : gi.nodes) {
            auto at = named.find(n.node);
            if (at != named.end()) n.node = at->second;
        }
    }
    it->second.nodes = gi.nodes;
    it->second.waits = gi.waits;
    it->second.records = gi.records;
}
}  // namespace
#if CUDART_VERSION >= 12000
extern "C" cudaError_t lessonsGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, void* info) __asm__("cudaGraphExecUpdate");
extern "C" cudaError_t lessonsGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, void* info) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t, cudaGraph_t, void*))real("cudaGraphExecUpdate");
    HOOK_ENTRY();
    cudaError_t r = fn(e, g, info);
    execUpdated(r, e, g);
    return r;
}
#else
extern "C" cudaError_t lessonsGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, void* node, void* result) __asm__("cudaGraphExecUpdate");
extern "C" cudaError_t lessonsGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, void* node, void* result) {
    static auto fn = (cudaError_t(*)(cudaGraphExec_t, cudaGraph_t, void*, void*))real("cudaGraphExecUpdate");
    HOOK_ENTRY();
    cudaError_t r = fn(e, g, node, result);
    execUpdated(r, e, g);
    return r;
}
#endif
