from mk import *
EX = "graph-alloc"
s = read("exercises/day074/graph_alloc.cu")
s = sub(s, '''    // TODO 1: capture step from s, forked onto s2 with the events fork and
    // join: on each branch allocate a scratch buffer of `bytes`, scale `in`
    // into it (by 2 on s, by 3 on s2), sum it into totals[0] and free it;
    // then instantiate step. The two branches must not depend on each other.
''', '''    // TODO 1: capture step from s, forked onto s2 with the events fork and
    // join: on each branch allocate a scratch buffer of `bytes`, scale `in`
    // into it (by 2 on s, by 3 on s2), sum it into totals[0] and free it;
    // then instantiate step. The two branches must not depend on each other.
    const int sumBlocks = 264;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    // s2's branch first: the order on the host does not matter, only the
    // edges the events make.
    CHECK(cudaMallocAsync(&b, bytes, s2));
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<sumBlocks, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaMallocAsync(&a, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    sum<<<sumBlocks, 256, 0, s>>>(a, n, totals);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
''')
s = sub(s, '''    // yourself after each sum, in TODO 3). Then find produce's kernel node
    // in produce_graph: keep it in scale_node, its parameters in scale_params.
''', '''    // yourself after each sum, in TODO 3). Then find produce's kernel node
    // in produce_graph: keep it in scale_node, its parameters in scale_params.
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaMallocAsync(&out, bytes, s));
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
            cudaKernelNodeParams p = {};
            CHECK(cudaGraphKernelNodeGetParams(node, &p));
            if (p.func == (void*)scale) { scale_node = node; scale_params = p; }
        }
        if (scale_node == nullptr) { fprintf(stderr, "produce has no scale node\\n"); return 1; }
    }
''')
s = sub(s, '''    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
''', '''    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
    // The graphs are uploaded once, before the first launch; the factor is
    // set through an argument array of this program's own, which the
    // node's parameters point at: the values are copied at each set.
    CHECK(cudaGraphUpload(step, s));
    CHECK(cudaGraphUpload(produce, s));
    const int* arg_in = in;
    int* arg_out = out;
    int arg_n = n, factor = 1;
    void* args[] = {(void*)&arg_in, (void*)&arg_out, (void*)&arg_n, (void*)&factor};
    cudaKernelNodeParams params = scale_params;
    params.kernelParams = args;
    params.extra = nullptr;
    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        factor = k;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &params));
        CHECK(cudaGraphLaunch(produce, s));
        sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);
    }
''')
s = sub(s, '''    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part
''', '''    // `out` is still allocated, and the executable graphs still exist.
    CHECK(cudaFreeAsync(out, s));       // after the last sum, in s's order
    CHECK(cudaStreamSynchronize(s));    // the free has happened: nothing of the graphs is in use
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaDeviceGraphMemTrim(device));
''')
correct = s
write(EX, "correct.cu", header("//", "correct", "none: step captured with s2's branch queued first (allocation, scale by 3, sum, free on s2), then s's; produce instantiated with auto-free, its scale node found by walking the nodes for the kernel whose function is scale; both graphs uploaded before the loop; the factor set each launch through the program's own argument array (in, out, n, factor) given to cudaGraphExecKernelNodeSetParams; the last out freed on s, s synchronized, both execs destroyed, then the trim.", "none.", "none (written from the lesson and the student file).") + correct)

W = [
("out-summed-on-s2-across-the-auto-free",
 "wrong (race: the next launch frees and rewrites out while another stream may still read it)",
 "each launch's out is summed on s2 (s records fork after the launch, s2 waits for it and sums), so that the sums overlap the next step launch; s waits for s2's join only once, after the loop.",
 "with auto-free, produce's next launch frees out and allocates it again (the same address) at its start, in s's order only; s2's sum of the previous out is not ordered before that launch, so the free, and the next scale's writes, can come while s2 still reads it. The step launch queued between them on s usually gives s2 time, so the totals come out right.",
 "NVIDIA/cccl#9394 (auto-free on launch turned on so that graphs whose allocation is freed outside them can be relaunched; the review flags the ordering the program then owes), NVIDIA/warp#1429 (a graph allocation kept past the launch that auto-free frees at the next one)",
 [('''        CHECK(cudaGraphLaunch(produce, s));
        sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);
    }
''', '''        CHECK(cudaGraphLaunch(produce, s));
        // The sum runs beside the next launches: s2 waits for this one only.
        CHECK(cudaEventRecord(fork, s));
        CHECK(cudaStreamWaitEvent(s2, fork, 0));
        sum<<<sumBlocks, 256, 0, s2>>>(out, n, totals + 1);
    }
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));   // the totals are read on s
''')]),
("exec-graphs-left-for-the-exit",
 "wrong (leak; the trim's figure may or may not show it)",
 "TODO 4 frees the last out, synchronizes s and trims, but leaves the two executable graphs to the end of the program (they are not destroyed: the process exit takes them).",
 "the memory a graph reserved belongs to its executable as long as it exists: an executable never destroyed keeps what the trim cannot give back (whether the figure printed after the trim shows it depends on the driver), and the program ends with two executable graphs leaked, which TODO 4 names.",
 "NVIDIA/warp#1429 (graph allocations retained and never released: cuGraphExecDestroy does not clean up live graph allocations), luminal-ai/luminal#501 (CUDA can retain a graph allocation until both the executable is destroyed and the graph pool is trimmed)",
 [('''    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaDeviceGraphMemTrim(device));
''', '''    CHECK(cudaDeviceGraphMemTrim(device));   // the executables go with the process
''')]),
("step-launched-on-its-branch-stream",
 "wrong (the step graph's launches ordered after nothing that s did first)",
 "TODO 3 uploads and launches step on s2 (read as 'step's stream' from its comment) and produce on s, so that the two graphs overlap; after the loop s waits for s2 (the join event), so the totals are read after both.",
 "a launch runs in the order of the stream it is launched on: step's launches on s2 come after nothing of s, so the first can read `in` before the ones kernel on s wrote it and add into totals[0] before the memset on s cleared them. The capture, instantiation and describe take the host milliseconds after those two were queued, so they are done by then and the totals come out right; only an order the record follows would show it.",
 "alpaka-group/alpaka#850 (work on one stream read by another with no event between them: right by timing), NVIDIA/cuda-python#2289 (review of a tutorial: without the stream wait, the copy on stream_b could race ahead of the kernel on stream_a)",
 [('''    CHECK(cudaGraphUpload(step, s));
''', '''    CHECK(cudaGraphUpload(step, s2));
'''), ('''        CHECK(cudaGraphLaunch(step, s));
''', '''        CHECK(cudaGraphLaunch(step, s2));
'''), ('''        sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);
    }
''', '''        sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);
    }
    CHECK(cudaEventRecord(join, s2));         // step's launches are done before the totals are read
    CHECK(cudaStreamWaitEvent(s, join, 0));
''')]),
]
for slug, kind, mis, why, src, edits in W:
    write(EX, "wrong-%s.cu" % slug, header("//", kind, mis, why, src) + apply(correct, edits))
