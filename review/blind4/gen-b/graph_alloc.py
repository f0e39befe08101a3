STUDENT = "exercises/day074/graph_alloc.cu"
DIR = "graph-alloc"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none, and the lesson's two alternatives at once: step's second buffer is freed on s after the join (not on s2), and produce is instantiated without the auto-free flag, `out` freed with cudaFreeAsync on s after each sum; both graphs uploaded to s before the loop; the kernel node found by type with cudaGraphGetNodes, its factor changed with cudaGraphExecKernelNodeSetParams from a copy of its parameters with an argument array of the student's own; TODO 4 destroys the executable graphs, waits for s and trims.",
    "why it is wrong": "it is not: the lesson says \"An alternative that frees `out` on `s` after each sum, outside the graph, with `produce` instantiated without the flag, passes too; so does a free of `s2`'s buffer on `s` after the join\". The free after each sum is also what makes the next launch legal (\"freed with cudaFreeAsync on the stream, the graph launches again\").",
    "source": "own design; cudaGraphUpload from the lesson (\"Before the first launch\"); the update call from the runtime reference of cudaGraphExecKernelNodeSetParams",
}
CORRECT = [
("""    // TODO 1: capture step from s, forked onto s2 with the events fork and
    // join: on each branch allocate a scratch buffer of `bytes`, scale `in`
    // into it (by 2 on s, by 3 on s2), sum it into totals[0] and free it;
    // then instantiate step. The two branches must not depend on each other.
""", """    // step: s forks onto s2; each branch allocates, scales and sums; s
    // frees its own buffer, and s2's once s2 has joined back.
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMallocAsync(&a, bytes, s));
    CHECK(cudaMallocAsync(&b, bytes, s2));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<264, 256, 0, s>>>(a, n, totals);
    sum<<<264, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaFreeAsync(b, s));   // after the join: after s2's sum
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
"""),
("""    // TODO 2: capture produce from s: allocate `out` (`bytes`) and scale
    // `in` into it by 1, without freeing it; instantiate it so that each
    // launch frees what the launch before allocated (or free `out` on s
    // yourself after each sum, in TODO 3). Then find produce's kernel node
    // in produce_graph: keep it in scale_node, its parameters in scale_params.
""", """    // produce: out outlives the launch; it is freed on s after each sum
    // (below), so it is instantiated without the auto-free flag.
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync(&out, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
    CHECK(cudaStreamEndCapture(s, &produce_graph));
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
        if (scale_node == nullptr) {
            fprintf(stderr, "produce has no kernel node\\n");
            return 1;
        }
        CHECK(cudaGraphKernelNodeGetParams(scale_node, &scale_params));
    }
"""),
("""    // TODO 3: launch each graph `launches` times on s, without instantiating
    // again: produce's k-th launch (from 1) scales `in` by k (change its
    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
""", """    // Mapped once, before the loop, for the stream they are launched into.
    CHECK(cudaGraphUpload(step, s));
    CHECK(cudaGraphUpload(produce, s));
    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        const int* src = in;
        int count = n, factor = k;
        void* args[4] = {&src, &out, &count, &factor};
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;
        p.extra = nullptr;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));   // copied: later launches only
        CHECK(cudaGraphLaunch(produce, s));
        sum<<<264, 256, 0, s>>>(out, n, totals + 1);
        CHECK(cudaFreeAsync(out, s));   // freed before produce allocates it again
    }
"""),
("""    // TODO 4: give the graphs' memory back to the driver: the last launch's
    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part
""", """    // Every out was freed after its sum; the executable graphs go, s is
    // waited for, and what no graph uses goes back to the driver.
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(device));
"""),
]

WRONG = [
    ("params-set-on-the-graph", {
        "kind": "an API used on the wrong object (the graph, not the executable graph)",
        "mistake": "the factor is changed with cudaGraphKernelNodeSetParams(scale_node, ...) on produce_graph's node, instead of cudaGraphExecKernelNodeSetParams on the instantiated graph.",
        "why it is wrong": "the executable graph is a copy made at instantiation; a change to the graph does not reach it (the lesson: \"after that, a change to the graph (cudaGraphKernelNodeSetParams) does not reach the executable one\"). Every launch scales by 1: produce's total is n * launches.",
        "source": "the CUDA runtime reference of cudaGraphExecKernelNodeSetParams (\"hNode is also not modified by this call\", and the graph's own node is not the executable's); the lesson's \"An instantiated graph is a copy\"",
    }, [
        ("        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));   // copied: later launches only",
         "        CHECK(cudaGraphKernelNodeSetParams(scale_node, &p));   // the node's new factor"),
    ]),
    ("out-freed-on-s2", {
        "kind": "a free on the wrong stream (not ordered after the sum that reads the buffer)",
        "mistake": "`out` is freed with cudaFreeAsync on s2, \"the idle stream\", instead of on s after the sum.",
        "why it is wrong": "s2 is not ordered after anything on s once step's capture is over: the free can run while the sum of that launch still reads out, and the next launch of produce may map the same memory for the next out. (Day 70's rule, and the lesson: \"a free not ordered after the work that reads it fails\".)",
        "source": "own; the rule from the CUDA Programming Guide, \"Stream Ordered Memory Allocator\" (a free on another stream needs the freeing stream to wait for the users)",
    }, [
        ("        CHECK(cudaFreeAsync(out, s));   // freed before produce allocates it again",
         "        CHECK(cudaFreeAsync(out, s2));   // s2 is idle: free it there"),
    ]),
    ("branch-frees-before-its-sum", {
        "kind": "a free too early (a graph buffer freed by its branch before the other branch reads it)",
        "mistake": "s2's branch frees its own buffer right after its scale (\"each branch frees what it allocated\"), and s sums that buffer after the join.",
        "why it is wrong": "the join comes after s2's free node, so s's sum of b is ordered after b's free: in every launch it reads graph memory that is no longer allocated, which the driver may map for another allocation (the lesson: \"a buffer may be used only by nodes ordered after its allocation node and before its free node\"). The capture ends without an error; describe prints 1 kernel not before its buffer's free.",
        "source": "own; the rule from the CUDA Programming Guide, \"Graph Memory Nodes\" (accesses must be ordered before the free node)",
    }, [
        ("""    sum<<<264, 256, 0, s>>>(a, n, totals);
    sum<<<264, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaFreeAsync(b, s));   // after the join: after s2's sum""", """    sum<<<264, 256, 0, s>>>(a, n, totals);
    CHECK(cudaFreeAsync(b, s2));   // the branch frees what it allocated
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    sum<<<264, 256, 0, s>>>(b, n, totals);   // s adds up s2's buffer once s2 has joined"""),
    ]),
    ("factor-set-after-launch", {
        "kind": "off by one (the update placed after the launch it was meant for)",
        "mistake": "the k-th factor is set after the k-th launch of produce, so each launch runs with the factor set for the launch before it (the first with the captured 1).",
        "why it is wrong": "the update affects \"future launches only\": the k-th launch scales by k - 1 (by 1 for the first), and produce's total is short by n * (launches - 1) for any run of more than one launch.",
        "source": "own; the runtime reference of cudaGraphExecKernelNodeSetParams (\"The modifications only affect future launches\")",
    }, [
        ("""        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));   // copied: later launches only
        CHECK(cudaGraphLaunch(produce, s));""", """        CHECK(cudaGraphLaunch(produce, s));
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));   // copied: later launches only"""),
    ]),
    ("relaxed-capture-cudamalloc", {
        "kind": "an API used with a wrong flag (relaxed capture mode, so that a synchronous cudaMalloc is let through)",
        "mistake": "produce is captured in cudaStreamCaptureModeRelaxed so that `out` can be made with cudaMalloc inside the capture (\"out outlives the launch, so it should be ordinary memory\"); out is then freed with cudaFree at the end instead of after each sum.",
        "why it is wrong": "relaxed mode lets the call run at once, outside the graph: produce has no allocation node, out is allocated once and shared by every launch, and nothing of the exercise's graph memory is exercised (the lesson: \"an allocation counted once instead of once a launch means the allocation was made outside the capture\"; TODO 2: \"allocate `out`\" in the capture).",
        "source": "ROCm/composable_kernel#915 (\"hipMalloc could not be included inside the hipGraph capturing for hipStreamCaptureModeGlobal, but can be included inside for hipStreamCaptureModeRelaxed\"); pytorch/pytorch#107407 (\"relaxed will not error on these actions\")",
    }, [
        ("""    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync(&out, bytes, s));""", """    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    CHECK(cudaMalloc(&out, bytes));   // relaxed mode allows it"""),
        ("""        CHECK(cudaFreeAsync(out, s));   // freed before produce allocates it again
""", ""),
        ("""    CHECK(cudaDeviceGraphMemTrim(device));
""", """    CHECK(cudaFree(out));
    CHECK(cudaDeviceGraphMemTrim(device));
"""),
    ]),
]
