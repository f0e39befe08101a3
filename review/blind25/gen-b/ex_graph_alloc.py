from lib import build

S = "exercises/day074/graph_alloc.cu"

T1_OLD = """    // then instantiate step. The two branches must not depend on each other.
"""
T1_NEW = """    // then instantiate step. The two branches must not depend on each other.
    // Global mode; the two branches written side by side, call by call,
    // s2's call of each pair first; one sum kernel of 264 blocks a branch.
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMallocAsync((void**)&b, bytes, s2));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    sum<<<264, 256, 0, s2>>>(b, n, totals);
    sum<<<264, 256, 0, s>>>(a, n, totals);
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
"""
T2_OLD = """    // in produce_graph: keep it in scale_node, its parameters in scale_params.
"""
T2_NEW = """    // in produce_graph: keep it in scale_node, its parameters in scale_params.
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync((void**)&out, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
    CHECK(cudaStreamEndCapture(s, &produce_graph));
    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    {
        size_t count = 0;
        CHECK(cudaGraphGetNodes(produce_graph, nullptr, &count));
        std::vector<cudaGraphNode_t> nodes(count);
        if (count) CHECK(cudaGraphGetNodes(produce_graph, nodes.data(), &count));
        for (cudaGraphNode_t node : nodes) {
            cudaGraphNodeType type;
            CHECK(cudaGraphNodeGetType(node, &type));
            if (type != cudaGraphNodeTypeKernel) continue;
            scale_node = node;
            CHECK(cudaGraphKernelNodeGetParams(node, &scale_params));
        }
        if (scale_node == nullptr) { fprintf(stderr, "produce has no kernel node\\n"); return 1; }
    }
"""
T3_OLD = """    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
"""
T3_NEW = """    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
    // The first launch runs with the captured factor 1: the node is set
    // only from the second launch on (LAUNCHES - 1 updates).
    int factor = 1;
    int count = n;
    void* args[4] = {(void*)&in, (void*)&out, (void*)&count, (void*)&factor};
    cudaKernelNodeParams next = scale_params;
    next.kernelParams = args;
    next.extra = nullptr;
    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        if (k > 1) {
            factor = k;
            CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &next));
        }
        CHECK(cudaGraphLaunch(produce, s));
        sum<<<264, 256, 0, s>>>(out, n, totals + 1);
    }
"""
T4_OLD = """    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part
"""
T4_NEW = """    // `out` is still allocated, and the executable graphs still exist.
    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaDeviceGraphMemTrim(device));
"""

CORRECT = [(T1_OLD, T1_NEW), (T2_OLD, T2_NEW), (T3_OLD, T3_NEW), (T4_OLD, T4_NEW)]

DESIGN = ("step captured in GLOBAL mode with the two branches written INTERLEAVED, call by call, s2's call of each pair "
          "FIRST (fork recorded on s and waited for by s2; allocate b on s2 then a on s, scale b by 3 then a by 2, sum "
          "b then a with 264-block sums, free b then a, join recorded on s2 and waited for by s), instantiated with "
          "cudaGraphInstantiateWithFlags(0); produce captured in global mode and instantiated with the auto-free "
          "flag; its kernel node found by walking produce_graph's nodes by type; the factor updated in the executable "
          "graph ONLY FROM THE SECOND LAUNCH ON (LAUNCHES - 1 updates of the node, through an argument array of my own "
          "whose factor slot changes); the trim: the last out freed on s with cudaFreeAsync (behind the busy kernel), "
          "one cudaStreamSynchronize of s, both executables destroyed, cudaDeviceGraphMemTrim")

WRONGS = [
    ("b-freed-on-s2-after-the-join-is-recorded",
     "the program's own output: the capture of step does not end (cudaStreamEndCapture fails: a stream that joined "
     "it was not brought back), the program stops before any line of totals",
     "in the interleaved capture the free of b is queued on s2 after join is recorded there, so s's wait on join does "
     "not cover it",
     "every node s2 adds to the capture must come before the join that s waits for; a node added after the record is "
     "a branch left hanging, and the capture cannot close",
     "deepseek-ai/DeepEP#62 (capture fails: capturing stream has unjoined work)",
     [("    CHECK(cudaFreeAsync(b, s2));\n    CHECK(cudaFreeAsync(a, s));\n    CHECK(cudaEventRecord(join, s2));\n",
       "    CHECK(cudaFreeAsync(a, s));\n    CHECK(cudaEventRecord(join, s2));\n    CHECK(cudaFreeAsync(b, s2));\n")]),
    ("stream-synchronized-before-the-last-free",
     "a race (by timing): the line after the trim may still show the last out's memory reserved and used; the record: "
     "the trim not ordered after the free it was meant to follow",
     "TODO 4 waits for s first and queues the free of the last out after the wait, then destroys the executables and "
     "trims at once",
     "the free is queued on s after the host's only wait, so nothing makes the host wait for it: the trim can run "
     "while the last out is still allocated, and that memory is not given back",
     "own",
     [("    CHECK(cudaFreeAsync(out, s));\n    CHECK(cudaStreamSynchronize(s));\n",
       "    CHECK(cudaStreamSynchronize(s));\n    CHECK(cudaFreeAsync(out, s));\n")]),
    ("a-freed-before-its-sum-in-the-interleaving",
     "the program's own output: step's description counts a kernel not before its buffer's free (the sum of a), and "
     "the record a use after free in the graph; the totals most likely right",
     "while writing the branches side by side, the free of a is queued on s before the sum that reads a",
     "a graph's free node must come after every kernel that uses its buffer; the sum then reads memory the graph has "
     "already given back",
     "own",
     [("    sum<<<264, 256, 0, s2>>>(b, n, totals);\n    sum<<<264, 256, 0, s>>>(a, n, totals);\n    CHECK(cudaFreeAsync(b, s2));\n    CHECK(cudaFreeAsync(a, s));\n",
       "    sum<<<264, 256, 0, s2>>>(b, n, totals);\n    CHECK(cudaFreeAsync(a, s));\n    sum<<<264, 256, 0, s>>>(a, n, totals);\n    CHECK(cudaFreeAsync(b, s2));\n")]),
    ("b-allocated-on-s-in-the-interleaving",
     "the program's own output: step's description counts kernels after another buffer's allocation (s's kernels "
     "hang from b's allocation node), and the record a use and a free of b not ordered after its allocation (if the "
     "driver checks that b's free node follows its allocation, the capture or the instantiation fails instead); the "
     "totals most likely right",
     "the allocation of b, the first call of the pair, is queued on s instead of s2",
     "b's allocation node then sits on s's branch: s2's scale of b is not ordered after it, and a's branch waits for "
     "an allocation it does not use",
     "own",
     [("    CHECK(cudaMallocAsync((void**)&b, bytes, s2));\n", "    CHECK(cudaMallocAsync((void**)&b, bytes, s));\n")]),
]


def rows():
    return build("graph-alloc", S, "cu", CORRECT, DESIGN, WRONGS)
