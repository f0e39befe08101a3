STUDENT = "exercises/day074/graph_alloc.cu"
DIR = "graph-alloc"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. step: s2's scratch buffer is freed on s after the join (the
    lesson's alternative), s's own on its branch. produce: instantiated with
    cudaGraphInstantiateFlagAutoFreeOnLaunch; its kernel node found by type and
    by function; each launch's factor set with cudaGraphExecKernelNodeSetParams
    from a fresh argument array (the node's own parameter memory is only read).
    The end: the last `out` freed on s, both executable graphs destroyed, s
    synchronised, then cudaDeviceGraphMemTrim.""",
    why="""it is not: every buffer is used only between its allocation and free
    nodes; each launch of produce frees the previous `out`, which the sum before
    it has read in s's order; the trim comes after the wait.""",
    source="""own design from the lesson (day 74, "Branches, and a graph changed
    without capturing it again", "The exercise"); the runtime API reference,
    cudaGraphInstantiateWithFlags, cudaGraphExecKernelNodeSetParams and
    cudaDeviceGraphMemTrim.""")

CORRECT = [
("""    // TODO 1: capture step from s, forked onto s2 with the events fork and
    // join: on each branch allocate a scratch buffer of `bytes`, scale `in`
    // into it (by 2 on s, by 3 on s2), sum it into totals[0] and free it;
    // then instantiate step. The two branches must not depend on each other.
""",
"""    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    CHECK(cudaMallocAsync((void**)&b, bytes, s2));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<256, 256, 0, s>>>(a, n, totals);
    sum<<<256, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaFreeAsync(b, s));   // after the join: after s2's kernels
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
"""),
("""    // TODO 2: capture produce from s: allocate `out` (`bytes`) and scale
    // `in` into it by 1, without freeing it; instantiate it so that each
    // launch frees what the launch before allocated (or free `out` on s
    // yourself after each sum, in TODO 3). Then find produce's kernel node
    // in produce_graph: keep it in scale_node, its parameters in scale_params.
""",
"""    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaMallocAsync((void**)&out, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
    CHECK(cudaStreamEndCapture(s, &produce_graph));
    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    {
        size_t count = 0;
        CHECK(cudaGraphGetNodes(produce_graph, nullptr, &count));
        std::vector<cudaGraphNode_t> nodes(count);
        if (count) CHECK(cudaGraphGetNodes(produce_graph, nodes.data(), &count));
        for (cudaGraphNode_t nd : nodes) {
            cudaGraphNodeType t;
            CHECK(cudaGraphNodeGetType(nd, &t));
            if (t != cudaGraphNodeTypeKernel) continue;
            cudaKernelNodeParams p = {};
            CHECK(cudaGraphKernelNodeGetParams(nd, &p));
            if (p.func == (void*)scale) {
                scale_node = nd;
                scale_params = p;
            }
        }
        if (scale_node == nullptr) {
            fprintf(stderr, "produce has no scale node\\n");
            return 1;
        }
    }
"""),
("""    // TODO 3: launch each graph `launches` times on s, without instantiating
    // again: produce's k-th launch (from 1) scales `in` by k (change its
    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
""",
"""    {
        // scale's arguments: in, out, n (read from the node) and the factor.
        void* const* old = scale_params.kernelParams;
        for (int k = 1; k <= launches; k++) {
            int factor = k;
            void* args[4] = {old[0], old[1], old[2], &factor};
            cudaKernelNodeParams p = scale_params;
            p.kernelParams = args;
            p.extra = nullptr;
            CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));
            CHECK(cudaGraphLaunch(step, s));
            CHECK(cudaGraphLaunch(produce, s));
            sum<<<256, 256, 0, s>>>(out, n, totals + 1);
        }
    }
"""),
("""    // TODO 4: give the graphs' memory back to the driver: the last launch's
    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part
""",
"""    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(device));
"""),
]

WRONG = [
("trim-before-the-wait", dict(
    kind="ordering: the trim before the stream's work (and its free) is done",
    mistake="""the end trims the graphs' memory first and synchronises s after it:
    free, destroy the executable graphs, cudaDeviceGraphMemTrim, then
    cudaStreamSynchronize.""",
    why="""a trim gives back only memory no allocation holds; the free of the last
    `out` is queued on s behind the harness's busy kernel, so at the trim `out`
    is still allocated and its memory stays reserved ("after the trim" shows
    what the graphs hold, not 0).""",
    source="""pytorch/executorch#22312 ("with a free still pending the trim recovered
    0 of 256 MiB, and one stream synchronize recovered all of it");
    luminal-ai/luminal#472 ("synchronize after captured-library graph
    replacement", then trim the graph pool)."""),
 [("""    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(device));""",
   """    CHECK(cudaDeviceGraphMemTrim(device));
    CHECK(cudaStreamSynchronize(s));""")]),
("produce-without-auto-free", dict(
    kind="a missing flag: the graph that keeps its allocation instantiated without auto-free",
    mistake="""produce is instantiated with flags 0, like step, and nothing frees `out`
    between launches.""",
    why="""a graph whose allocation is still live cannot be launched again: either
    the program frees it (on s, after the sum) or the graph is instantiated with
    cudaGraphInstantiateFlagAutoFreeOnLaunch; here the second launch of produce
    fails and the program stops.""",
    source="""JuliaGPU/CUDA.jl#1230 ("Graph memory management": allocations not freed in
    the same graph must be freed by a free call, a free node, or
    AUTO_FREE_ON_LAUNCH); NVIDIA/cccl#9394 ("Auto-free graph allocations on
    launch" so that such graphs "be relaunched even when the corresponding free
    is outside the captured graph")."""),
 [("""    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));""",
   """    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, 0));""")]),
("factor-written-into-node-params", dict(
    kind="a misused API: the node's own parameter memory written in place",
    mistake="""to change the factor, the loop writes k straight into the argument
    memory that cudaGraphKernelNodeGetParams returned
    (*(int*)scale_params.kernelParams[3] = k) and passes those parameters to
    cudaGraphExecKernelNodeSetParams.""",
    why="""that memory belongs to the graph's node: the reference says it "should not
    be modified directly"; writing it changes the graph behind the runtime's
    back (undefined behaviour), and whether the executable graph sees k depends
    on how the runtime happens to store and copy it.""",
    source="""ggml-org/llama.cpp#12152 ("maintain_cuda_graph use of
    cudaGraphKernelNodeGetParams is incorrect": the returned struct's memory is
    owned by the node, "should not be modified directly", and the code wrote
    into it)."""),
 [("""            int factor = k;
            void* args[4] = {old[0], old[1], old[2], &factor};
            cudaKernelNodeParams p = scale_params;
            p.kernelParams = args;
            p.extra = nullptr;
            CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));""",
   """            *(int*)old[3] = k;
            CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &scale_params));""")]),
]
