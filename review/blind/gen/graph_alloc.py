ID = "graph-alloc"
SRC = "exercises/day074/graph_alloc.cu"
NOTE = "Correct design (the lesson's two accepted alternatives together): in step, s waits for the join right after its own sum and then frees both scratch buffers, so the longest chain stays 4 and the branches stay independent; produce is instantiated without the auto-free flag and `out` is freed on s, outside the graph, right after each sum; the factor is changed with cudaGraphExecKernelNodeSetParams on an argument array of our own."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = [
("""    // TODO 1: capture step from s, forked onto s2 with the events fork and
    // join: on each branch allocate a scratch buffer of `bytes`, scale `in`
    // into it (by 2 on s, by 3 on s2), sum it into totals[0] and free it;
    // then instantiate step. The two branches must not depend on each other.
    describe("step", step_graph);""", """    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));   // s2 joins the capture, as a branch
    CHECK(cudaMallocAsync(&a, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    sum<<<128, 256, 0, s>>>(a, n, totals);
    CHECK(cudaMallocAsync(&b, bytes, s2));
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<128, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    // After the join both frees come after both sums.
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaFreeAsync(b, s));
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
    describe("step", step_graph);"""),
("""    // TODO 2: capture produce from s: allocate `out` (`bytes`) and scale
    // `in` into it by 1, without freeing it; instantiate it so that each
    // launch frees what the launch before allocated (or free `out` on s
    // yourself after each sum, in TODO 3). Then find produce's kernel node
    // in produce_graph: keep it in scale_node, its parameters in scale_params.
    describe("produce", produce_graph);""", """    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync(&out, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
    CHECK(cudaStreamEndCapture(s, &produce_graph));
    // No auto-free: the loop frees each launch's `out` on s after its sum.
    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, 0));
    {
        size_t count = 0;
        CHECK(cudaGraphGetNodes(produce_graph, nullptr, &count));
        std::vector<cudaGraphNode_t> nodes(count);
        if (count) CHECK(cudaGraphGetNodes(produce_graph, nodes.data(), &count));
        for (cudaGraphNode_t node : nodes) {
            cudaGraphNodeType t;
            CHECK(cudaGraphNodeGetType(node, &t));
            if (t == cudaGraphNodeTypeKernel) scale_node = node;
        }
        if (scale_node == nullptr) { fprintf(stderr, "produce has no kernel node\\n"); return 1; }
        CHECK(cudaGraphKernelNodeGetParams(scale_node, &scale_params));
    }
    describe("produce", produce_graph);"""),
("""    // TODO 3: launch each graph `launches` times on s, without instantiating
    // again: produce's k-th launch (from 1) scales `in` by k (change its
    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).""", """    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        // Our own argument array: the node's own pointers are the graph's.
        int factor = k, count = n;
        const int* src = in;
        int* dst = out;
        void* args[] = {&src, &dst, &count, &factor};
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;
        p.extra = nullptr;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));   // later launches only
        CHECK(cudaGraphLaunch(produce, s));
        sum<<<128, 256, 0, s>>>(out, n, totals + 1);
        CHECK(cudaFreeAsync(out, s));   // before the next launch, in s's order
    }"""),
("""    // TODO 4: give the graphs' memory back to the driver: the last launch's
    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part""", """    // `out` was freed after each sum; the executable graphs go, then the
    // stream is waited for (the frees are queued behind busy), then trim.
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(device));"""),
]
CORRECT = (H("correct", "None intended: join before both frees in step (chain of 4, independent branches), out freed on s after each sum with no auto-free flag, exec node parameters updated in place.", "n/a", "own"), E)
WRONGS = [
 ("sum-on-s2-no-back-edge",
  H("a graph allocation read after the graph's next launch freed it",
    "produce is instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch and, 'to overlap', each launch's `out` is summed on s2 after s2 waits for an event recorded on s after the launch; s never waits for that sum. The next launch on s frees `out` at its start and writes the next factor into the same address while s2's sum may still read it; on an idle GPU the sum usually wins and the totals are right.",
    "Day 74, 'What changes when an allocation is captured': an allocation that outlives the launch may be used by work after the launch and is freed at the start of the next (auto-free); the work that reads it must be ordered before that next launch.",
    "own"),
  [("""    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, 0));""",
    """    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));"""),
   ("""        CHECK(cudaGraphLaunch(produce, s));
        sum<<<128, 256, 0, s>>>(out, n, totals + 1);
        CHECK(cudaFreeAsync(out, s));   // before the next launch, in s's order
    }""", """        CHECK(cudaGraphLaunch(produce, s));
        CHECK(cudaEventRecord(join, s));           // out is ready
        CHECK(cudaStreamWaitEvent(s2, join, 0));
        sum<<<128, 256, 0, s2>>>(out, n, totals + 1); // summed beside the next launches
    }
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));        // the totals are read on s
    CHECK(cudaFreeAsync(out, s));                  // the last launch's out"""),
  ]),
 ("free-before-join",
  H("a graph free not ordered after the other branch's kernels",
    "In step, s frees both scratch buffers right after its own sum and only then waits for the join. The free node of s2's buffer is then ordered after s's kernels but not after s2's scale and sum, which may still read it: the graph's describe line shows a kernel not before its buffer's free, but the totals are right.",
    "Day 74, 'Branches': 'a free on the first stream before the join is not ordered after the other branch's kernels'; a buffer may be used only by nodes ordered after its allocation node and before its free node (Programming Guide, Graph Memory Nodes).",
    "own"),
  [("""    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    // After the join both frees come after both sums.
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaFreeAsync(b, s));""", """    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaFreeAsync(b, s));   // both scratch buffers, on the main branch
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));""")]),
 ("recapture-each-launch",
  H("captured again at every launch",
    "Instead of updating the executable graph's kernel node, the loop captures produce again with the new factor, instantiates it, launches it and destroys it, every iteration. Every total is right and nothing leaks, but the program makes a captured allocation and an instantiation per launch, where the lesson's point is one capture whose node is changed in place.",
    "Day 74, 'An instantiated graph is a copy': cudaGraphExecKernelNodeSetParams changes the executable graph itself, 'and the graph is neither captured nor instantiated again (a new capture would be a new allocation)'; the checks count three captured allocations for any number of launches.",
    "own"),
  [("""        int factor = k, count = n;
        const int* src = in;
        int* dst = out;
        void* args[] = {&src, &dst, &count, &factor};
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;
        p.extra = nullptr;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));   // later launches only
        CHECK(cudaGraphLaunch(produce, s));""", """        // A fresh graph with this launch's factor: simpler than patching nodes.
        cudaGraph_t g = nullptr;
        cudaGraphExec_t e = nullptr;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        CHECK(cudaMallocAsync(&out, bytes, s));
        scale<<<blocks, 256, 0, s>>>(in, out, n, k);
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiateWithFlags(&e, g, 0));
        CHECK(cudaGraphLaunch(e, s));
        CHECK(cudaGraphExecDestroy(e));
        CHECK(cudaGraphDestroy(g));""")]),
 ("poll-in-loop",
  H("host wait disguised",
    "Before changing produce's kernel factor, the loop spins on cudaStreamQuery(s) until the previous launch is done, 'so the update cannot change a launch in flight'. No synchronisation call is made, every figure is right, but the host waits for the GPU in every iteration, which the update never needed.",
    "Day 74, 'An instantiated graph is a copy': the change affects future launches only, 'already enqueued or running launches ... are not affected. So nothing needs to wait before it'; the checks: no wait inside the loop.",
    "https://forums.developer.nvidia.com/t/cpu-spins-while-waiting-for-gpu-to-finish-computation/241672 (host spinning on the GPU)"),
  [("""        cudaKernelNodeParams p = scale_params;""", """        while (cudaStreamQuery(s) == cudaErrorNotReady) {
        } // the previous launch must not see the new factor
        cudaKernelNodeParams p = scale_params;""")]),
 ("fork-too-late",
  H("branches that depend on each other",
    "The fork event is recorded on s after s's allocation and scale, not at the start, so s2's branch waits for s's scale before it even allocates. The totals and frees are right, but the two branches of step run one after the other for their first half: the longest chain grows, and the capture no longer has two independent branches.",
    "Day 74, 'Branches': what the second stream is given after waiting for the fork becomes a branch 'with no dependency on the first stream's later work'; the exercise: 'The two branches must not depend on each other.'",
    "own"),
  [("""    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));   // s2 joins the capture, as a branch
    CHECK(cudaMallocAsync(&a, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);""", """    CHECK(cudaMallocAsync(&a, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));   // s2 joins the capture, as a branch""")]),
]
