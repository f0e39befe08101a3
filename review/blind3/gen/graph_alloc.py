STUDENT = "exercises/day074/graph_alloc.cu"
DIR = "graph-alloc"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct",
    mistake="none: step forks s onto s2 with fork/join, each branch allocates, scales, sums and frees its own scratch; produce is instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch; its kernel's factor is changed with cudaGraphExecKernelNodeSetParams before each launch; at the end out is freed on s, s waited for, both executable graphs destroyed, then cudaDeviceGraphMemTrim.",
    why_it_is_wrong="",
    source="own (lesson day074; CUDA Programming Guide, Graph Memory Nodes; runtime reference cudaGraphExecKernelNodeSetParams)",
)
CORRECT_HEADER["why it is wrong"] = "it is not: the design the lesson asks for."

T1 = """    // TODO 1: capture step from s, forked onto s2 with the events fork and
    // join: on each branch allocate a scratch buffer of `bytes`, scale `in`
    // into it (by 2 on s, by 3 on s2), sum it into totals[0] and free it;
    // then instantiate step. The two branches must not depend on each other.
"""
C1 = """    // step: two branches, each allocating, using and freeing its scratch.
    const int sum_blocks = 264;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    CHECK(cudaMallocAsync((void**)&b, bytes, s2));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<sum_blocks, 256, 0, s>>>(a, n, totals);
    sum<<<sum_blocks, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
"""
T2 = """    // TODO 2: capture produce from s: allocate `out` (`bytes`) and scale
    // `in` into it by 1, without freeing it; instantiate it so that each
    // launch frees what the launch before allocated. Then find produce's
    // kernel node in produce_graph: keep it in scale_node, and its
    // parameters in scale_params.
"""
C2 = """    // produce: out outlives the launch; the next launch frees it.
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
            cudaGraphNodeType t;
            CHECK(cudaGraphNodeGetType(node, &t));
            if (t == cudaGraphNodeTypeKernel) scale_node = node;
        }
        if (scale_node == nullptr) { fprintf(stderr, "produce has no kernel node\\n"); return 1; }
        CHECK(cudaGraphKernelNodeGetParams(scale_node, &scale_params));
    }
"""
T3 = """    // TODO 3: launch each graph `launches` times on s, without instantiating
    // again: produce's k-th launch (from 1) scales `in` by k (change its
    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
"""
C3 = """    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        // The kernel's arguments, with the k-th factor; copied by the call.
        const int* arg_in = in;
        int* arg_out = out;
        int arg_n = n, arg_k = k;
        void* args[4] = {(void*)&arg_in, (void*)&arg_out, (void*)&arg_n, (void*)&arg_k};
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;
        p.extra = nullptr;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));
        CHECK(cudaGraphLaunch(produce, s));
        sum<<<sum_blocks, 256, 0, s>>>(out, n, totals + 1);
    }
"""
T4 = """    // TODO 4: give the graphs' memory back to the driver: the last launch's
    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part
"""
C4 = """    CHECK(cudaFreeAsync(out, s));          // the last launch's out, after its sum
    CHECK(cudaStreamSynchronize(s));       // the free has happened
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaDeviceGraphMemTrim(device));
"""
CORRECT = [(T1, C1), (T2, C2), (T3, C3), (T4, C4)]

WRONG = [
    ("cudafree-in-loop", {
        "kind": "race or a host wait inside the loop, by driver (a synchronous free of stream-ordered memory)",
        "mistake": "produce is instantiated without the auto-free flag and each launch's out is freed with cudaFree right after its sum is queued, outside the graph, believing cudaFree waits for the sum.",
        "why it is wrong": "the runtime reference (CUDA 12 and 13) says cudaFree performs no implicit synchronization for stream-ordered allocations and \"Callers must ensure that all accesses to these pointer have completed before invoking cudaFree\": the free is not ordered after the sum still queued on s (the lesson's rule: a buffer is used only before its free). Where a driver does synchronize, it is a wait inside the loop, which the exercise forbids. The totals come out right because the next launch maps the same memory at the same address.",
        "source": "https://github.com/kokkos/kokkos/issues/9307 (quotes the CUDA 13.0 runtime reference on cudaFree of stream-ordered pointers)",
    }, [
        ("CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));",
         "CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, 0));"),
        ("        sum<<<sum_blocks, 256, 0, s>>>(out, n, totals + 1);\n    }\n",
         "        sum<<<sum_blocks, 256, 0, s>>>(out, n, totals + 1);\n        if (k < launches) CHECK(cudaFree(out));   // before the next launch allocates it again\n    }\n"),
    ]),
    ("sync-before-update", {
        "kind": "a host wait where the lesson forbids it (inside the launch loop)",
        "mistake": "before changing produce's factor in the executable graph, the loop waits for s (cudaStreamSynchronize), so that the launch still running does not see the new factor.",
        "why it is wrong": "the wait is not needed: cudaGraphExecKernelNodeSetParams affects future launches only, \"already enqueued or running launches ... are not affected\" (runtime reference, quoted in the lesson's \"An instantiated graph is a copy\"); the exercise asks for no wait inside the loop. The totals are right, only slower.",
        "source": "own",
    }, [
        ("        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));",
         "        CHECK(cudaStreamSynchronize(s));   // let the running launch finish before changing its factor\n        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));"),
    ]),
    ("wait-wrong-stream", {
        "kind": "missing wait (wrong stream waited for)",
        "mistake": "TODO 4 frees out on s but then waits for s2 (step's branch stream) instead of s, and trims.",
        "why it is wrong": "s2 has nothing pending; s still runs the harness's busy kernel, so the free of out is still queued when the trim runs and the graphs' memory holding out is not given back (lesson: \"the harness keeps s busy first, so a trim that does not wait finds out still allocated\"). The printed figure after the trim is a size the student may read as normal (\"read them, do not compute them\").",
        "source": "own",
    }, [
        ("    CHECK(cudaStreamSynchronize(s));       // the free has happened",
         "    CHECK(cudaStreamSynchronize(s2));      // the graphs' streams are idle"),
    ]),
    ("trim-in-loop", {
        "kind": "waste: the graph memory is given back and mapped again at every launch",
        "mistake": "to keep the device's graph memory low, the loop calls cudaDeviceGraphMemTrim after each launch of produce.",
        "why it is wrong": "memory of a graph that is running or scheduled is not trimmed, but step's scratch memory freed at the end of its launch is: each later launch maps it again, which is the cost the lesson measured as kept out of the loop (\"Between launches the graph keeps its 64 MiB ... which is why a launch ... cost 0.042 ms\"; cudaGraphUpload: keep the mapping cost out of the loop). Totals and the final figures are unchanged.",
        "source": "own",
    }, [
        ("        CHECK(cudaGraphLaunch(produce, s));\n",
         "        CHECK(cudaGraphLaunch(produce, s));\n        CHECK(cudaDeviceGraphMemTrim(device));   // keep the graphs' footprint small\n"),
    ]),
]
