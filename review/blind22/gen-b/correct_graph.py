import sys; sys.path.insert(0, "gen-b")
from fill import fill
H = ["kind: correct",
     "mistake: none. Design: step captured in RELAXED mode with s's branch written whole FIRST (fork recorded on s and waited for by s2; allocate a on s, scale by 2, sum, free a; then b on s2, scale by 3, sum, free b, join recorded on s2), s waiting for join last, instantiated with cudaGraphInstantiateWithFlags(0); produce captured in GLOBAL mode and instantiated with the auto-free flag; its kernel node found as the kernel node whose output buffer, as the given kernel_buffer reads it, IS out; each launch's factor set on the executable with cudaGraphExecKernelNodeSetParams (a copy of the node's parameters whose argument array is mine, extra cleared) before that launch; TODO 4 frees the last out on s behind busy, WAITS for s, and only then destroys both executables and trims",
     "why it is wrong: -",
     "source: own"]
E = [("""    // then instantiate step. The two branches must not depend on each other.
""", """    // then instantiate step. The two branches must not depend on each other.
    const int sumBlocks = 264;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    sum<<<sumBlocks, 256, 0, s>>>(a, n, totals);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaMallocAsync((void**)&b, bytes, s2));
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<sumBlocks, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGetLastError());
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
"""),
("""    // in produce_graph: keep it in scale_node, its parameters in scale_params.
""", """    // in produce_graph: keep it in scale_node, its parameters in scale_params.
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync((void**)&out, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
    CHECK(cudaStreamEndCapture(s, &produce_graph));
    CHECK(cudaGetLastError());
    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    {
        size_t count = 0;
        CHECK(cudaGraphGetNodes(produce_graph, nullptr, &count));
        std::vector<cudaGraphNode_t> nodes(count);
        if (count) CHECK(cudaGraphGetNodes(produce_graph, nodes.data(), &count));
        for (cudaGraphNode_t node : nodes) {
            cudaGraphNodeType type;
            CHECK(cudaGraphNodeGetType(node, &type));
            if (type == cudaGraphNodeTypeKernel && kernel_buffer(node) == (void*)out) scale_node = node;   // the kernel that writes out
        }
        if (scale_node == nullptr) { fprintf(stderr, "produce has no kernel that writes out\\n"); return 1; }
        CHECK(cudaGraphKernelNodeGetParams(scale_node, &scale_params));
    }
"""),
("""    // produce, sum `out` into totals[1] on s (the sum kernel above).
""", """    // produce, sum `out` into totals[1] on s (the sum kernel above).
    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        int count = n, factor = k;
        void* args[] = {&in, &out, &count, &factor};
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;
        p.extra = nullptr;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));
        CHECK(cudaGraphLaunch(produce, s));
        sum<<<264, 256, 0, s>>>(out, n, totals + 1);
    }
"""),
("""    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part
""", """    // `out` is still allocated, and the executable graphs still exist.
    CHECK(cudaFreeAsync(out, s));   // behind the last sum and busy
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    step = produce = nullptr;
    CHECK(cudaDeviceGraphMemTrim(device));
"""),
]
fill("/work/main/exercises/day074/graph_alloc.cu", "graph-alloc/correct.cu", H, E)
