ID = "graph-alloc"
DIR = "graph-alloc-b"
SRC = "exercises/day074/graph_alloc.cu"
NOTE = "A second blind set for graph-alloc, written later by another helper from the lesson and the student file alone, without sight of the first set (`../graph-alloc/`) beyond its file names. Correct design: step's `s2` branch is issued first on the host (only the events order the branches), its sums on a grid capped at 1024 blocks; produce's kernel node is found by scanning the graph for the kernel node whose function is `scale`; the factor is changed through one argument array whose `factor` the loop sets before each `cudaGraphExecKernelNodeSetParams`; all of produce's launches (each followed by its sum) come first, then all of step's; at the end `out` is freed with `cudaFreeAsync`, the stream waited for, the executable graphs destroyed, then the trim."


def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}


E = [
("""    // then instantiate step. The two branches must not depend on each other.
""", """    // then instantiate step. The two branches must not depend on each other.
    const int sum_blocks = blocks < 1024 ? blocks : 1024;   // sum strides over the rest
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));   // s2 is part of the capture from here
    // s2's branch first: what orders the branches is the events, not the
    // order of these calls.
    CHECK(cudaMallocAsync((void**)&b, bytes, s2));
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<sum_blocks, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    sum<<<sum_blocks, 256, 0, s>>>(a, n, totals);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaStreamWaitEvent(s, join, 0));    // the join, before the capture ends
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
"""),
("""    // parameters in scale_params.
""", """    // parameters in scale_params.
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
            if (t != cudaGraphNodeTypeKernel) continue;
            cudaKernelNodeParams p = {};
            CHECK(cudaGraphKernelNodeGetParams(node, &p));
            if (p.func == (void*)scale) {
                scale_node = node;
                scale_params = p;
            }
        }
        if (scale_node == nullptr) {
            fprintf(stderr, "produce's graph has no scale kernel\\n");
            return 1;
        }
    }
"""),
("""    // produce, sum `out` into totals[1] on s (the sum kernel above).
""", """    // produce, sum `out` into totals[1] on s (the sum kernel above).
    {
        int count = n, factor = 1;
        void* args[4] = {(void*)&in, (void*)&out, (void*)&count, (void*)&factor};
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;
        p.extra = nullptr;
        const int sum_blocks = blocks < 1024 ? blocks : 1024;
        for (int k = 1; k <= launches; k++) {
            factor = k;   // the call copies the arguments: later launches only
            CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));
            CHECK(cudaGraphLaunch(produce, s));   // frees the previous launch's out first
            sum<<<sum_blocks, 256, 0, s>>>(out, n, totals + 1);
        }
        for (int k = 0; k < launches; k++) CHECK(cudaGraphLaunch(step, s));
    }
"""),
("""    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part
""", """    // `out` is still allocated, and the executable graphs still exist.
    CHECK(cudaFreeAsync(out, s));          // no launch follows to free the last one
    CHECK(cudaStreamSynchronize(s));       // busy, then that free
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaDeviceGraphMemTrim(device));
"""),
]

CORRECT = (H("correct",
             "None intended: step captured with s2's branch issued first (fork, allocate, scale by 3, sum, free, join record) then s's (allocate, scale by 2, sum, free, join wait); produce captured with its allocation and kernel, instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch; its kernel node found by function; every produce launch (factor set in the executable graph first) followed by its sum, then every step launch; at the end out freed in stream order, the stream waited for, both executable graphs destroyed, the graph memory trimmed.",
             "Correct: each branch allocates, uses and frees its own buffer, the branches joined before the capture ends and not dependent on each other; each sum of out is on s after the launch that made out and before the next launch, whose auto-free frees it; cudaGraphExecKernelNodeSetParams reaches later launches only, and copies the arguments at the call; the last out is freed and waited for before the trim, so nothing is left allocated.",
             "own"),
           E)

WRONGS = [
("free-out-before-sum",
 H("a graph allocation freed before its last use (output identical)",
   "The student takes the lesson's other way for out (produce instantiated without the auto-free flag, out freed with cudaFreeAsync on s after each launch) but frees it right after the launch, before the sum that reads it: 'it must be freed before the graph is launched again', so the free goes next to the launch.",
   "The free is queued on s before the sum, so the sum reads out after it is freed in stream order. Nothing else allocates in between and the next launch maps the same address again, so the sum still reads the launch's values and every total is right; only a record that orders frees against uses sees it.",
   "own (the lesson: 'it must be freed before the graph is launched again: with cudaFreeAsync/cudaFree outside the graph')"),
 [("""    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));""",
   """    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, 0));   // out freed by hand below"""),
  ("""            CHECK(cudaGraphLaunch(produce, s));   // frees the previous launch's out first
            sum<<<sum_blocks, 256, 0, s>>>(out, n, totals + 1);""",
   """            CHECK(cudaGraphLaunch(produce, s));
            CHECK(cudaFreeAsync(out, s));   // freed before the next launch, as it must be
            sum<<<sum_blocks, 256, 0, s>>>(out, n, totals + 1);"""),
  ("""    CHECK(cudaFreeAsync(out, s));          // no launch follows to free the last one
""", """    // every out was freed in the loop
""")]),
("exec-graphs-kept",
 H("executable graphs never destroyed (output identical)",
   "TODO 4 frees the last out, waits and trims, but does not destroy the executable graphs: the harness destroys step_graph and produce_graph after it, and the student takes that for the graphs' end.",
   "cudaGraphDestroy destroys the graphs the executable ones were made from, not the executable graphs, which stay until the process ends with whatever they hold. The trim still gives back every byte (an idle executable graph keeps no memory through a trim, as the lesson's demo shows), so the figures printed are those of the right answer; only a count of executable graphs made against destroyed shows the leak.",
   "https://github.com/luminal-ai/luminal/pull/467 (graph memory retained until 'both the executable is destroyed and the graph pool is trimmed')"),
 [("""    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaGraphExecDestroy(step));
""", "")]),
("scratch-outside-graph",
 H("allocations hoisted out of the graph (output shows only figures)",
   "step's scratch buffers are allocated once with cudaMallocAsync on s before the capture and freed on s at the end, and only the kernels are captured: the student hoists the allocations out of the loop, as one would before graphs could allocate, thinking a graph should not allocate on every launch.",
   "The exercise is a graph that allocates: step must hold an allocation node and a free node on each branch, its buffers living inside each launch. This step holds none ('step graph: 0 allocation nodes, 0 free nodes'), its scratch lives for the whole run in the device's pool instead of the graphs' memory, and the totals are right; only a reader who expects 2 and 2, or a count of captured allocations, sees it.",
   "own (graphs captured around buffers allocated beforehand, as the CUDA Graphs blog's examples do: https://developer.nvidia.com/blog/constructing-cuda-graphs-with-dynamic-parameters/)"),
 [("""    const int sum_blocks = blocks < 1024 ? blocks : 1024;   // sum strides over the rest
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));""", """    const int sum_blocks = blocks < 1024 ? blocks : 1024;   // sum strides over the rest
    // Scratch allocated once, outside the graph: no allocation per launch.
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    CHECK(cudaMallocAsync((void**)&b, bytes, s));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));"""),
  ("""    CHECK(cudaMallocAsync((void**)&b, bytes, s2));
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<sum_blocks, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    sum<<<sum_blocks, 256, 0, s>>>(a, n, totals);
    CHECK(cudaFreeAsync(a, s));
""", """    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<sum_blocks, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaEventRecord(join, s2));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    sum<<<sum_blocks, 256, 0, s>>>(a, n, totals);
"""),
  ("""    CHECK(cudaFreeAsync(out, s));          // no launch follows to free the last one
""", """    CHECK(cudaFreeAsync(out, s));          // no launch follows to free the last one
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaFreeAsync(b, s));
""")]),
("step-on-s2",
 H("results read after waiting for one of the two streams that made them (output identical, mostly)",
   "step's launches go on s2, 'the branch stream, so that they run beside produce's on s': the student reads 'launch each graph on s' as a default, not a requirement, and the end of the program waits for s only.",
   "step's launches on s2 are ordered neither after the harness's zeroing of totals on s nor before its copy of totals to the host on s, which waits for s alone: the host may read step's total before the last launches on s2 have added to it, and TODO 4 destroys step and trims while s2 may still run it. s's queue (every produce launch and sum) is longer than s2's, so the totals are right on most runs.",
   "https://forums.developer.nvidia.com/t/how-does-cudamemcpypeer-async-work-with-streams/267521 (work on two streams read with no event between them); the mistake is own"),
 [("""        for (int k = 0; k < launches; k++) CHECK(cudaGraphLaunch(step, s));""",
   """        for (int k = 0; k < launches; k++) CHECK(cudaGraphLaunch(step, s2));   // beside produce""")]),
("last-out-left",
 H("the last launch's allocation left allocated (output shows only figures)",
   "TODO 4 waits for the stream, destroys both executable graphs and trims, but does not free out: the auto-free flag 'frees what the launch before allocated', and the student expects destroying the executable graph to free the rest.",
   "The flag frees an allocation at the next launch; the last launch has none after it, and destroying a graph (executable or not) does not free its allocations. The last out stays allocated, so the trim cannot give its memory back: 'after the trim' still shows reserved and used memory, which only a reader who expects 0 notices.",
   "https://github.com/NVIDIA/warp/issues/1429 ('cudaGraphInstantiateFlagAutoFreeOnLaunch frees the previous launch's allocation but NOT the final one, and cuGraphExecDestroy doesn't clean up the live graph allocations either')"),
 [("""    CHECK(cudaFreeAsync(out, s));          // no launch follows to free the last one
    CHECK(cudaStreamSynchronize(s));       // busy, then that free""", """    CHECK(cudaStreamSynchronize(s));       // busy; the auto-free flag took care of out""")]),
]
