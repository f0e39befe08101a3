from mk import student, sub, build

T = student("exercises/day074/graph_alloc.cu")

T1_OLD = """    // TODO 1: capture step from s, forked onto s2 with the events fork and
    // join: on each branch allocate a scratch buffer of `bytes`, scale `in`
    // into it (by 2 on s, by 3 on s2), sum it into totals[0] and free it;
    // then instantiate step. The two branches must not depend on each other.
"""
T1_NEW = """    // Each branch's scratch is freed on the OTHER branch's stream, once
    // both sums are done: s frees s2's b after a wait for join, s2 frees s's
    // a after a wait for fork recorded again. So each free node comes after
    // both sums, and each branch is still a chain of four.
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    sum<<<264, 256, 0, s>>>(a, n, totals);
    CHECK(cudaMallocAsync((void**)&b, bytes, s2));
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<264, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaEventRecord(fork, s));    // s's sum is done
    CHECK(cudaEventRecord(join, s2));   // s2's sum is done
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaFreeAsync(a, s2));
    CHECK(cudaFreeAsync(b, s));
    CHECK(cudaEventRecord(join, s2));   // s2 rejoins s before the capture ends
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
"""

T2_OLD = """    // TODO 2: capture produce from s: allocate `out` (`bytes`) and scale
    // `in` into it by 1, without freeing it; instantiate it so that each
    // launch frees what the launch before allocated (or free `out` on s
    // yourself after each sum, in TODO 3). Then find produce's kernel node
    // in produce_graph: keep it in scale_node, its parameters in scale_params.
"""
T2_NEW = """    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaMallocAsync((void**)&out, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
    CHECK(cudaStreamEndCapture(s, &produce_graph));
    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    {
        // produce is allocation -> scale: the kernel is the root's one dependent.
        cudaGraphNode_t root = nullptr;
        size_t roots = 1;
        CHECK(cudaGraphGetRootNodes(produce_graph, &root, &roots));
        size_t next = 1;
#if CUDART_VERSION >= 13000
        CHECK(cudaGraphNodeGetDependentNodes(root, &scale_node, nullptr, &next));
#else
        CHECK(cudaGraphNodeGetDependentNodes(root, &scale_node, &next));
#endif
        CHECK(cudaGraphKernelNodeGetParams(scale_node, &scale_params));
    }
"""

T3_OLD = """    // TODO 3: launch each graph `launches` times on s, without instantiating
    // again: produce's k-th launch (from 1) scales `in` by k (change its
    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
"""
T3_NEW = """    {
        // The new parameters keep the graph's own argument pointers for in,
        // out and n, and point the factor at an int of the program's.
        int factor = 1;
        void* args[4] = {scale_params.kernelParams[0], scale_params.kernelParams[1], scale_params.kernelParams[2], &factor};
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;
        p.extra = nullptr;
        for (int k = 1; k <= launches; k++) {
            CHECK(cudaGraphLaunch(step, s));
            factor = k;
            CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));
            CHECK(cudaGraphLaunch(produce, s));
            sum<<<264, 256, 0, s>>>(out, n, totals + 1);
        }
    }
"""

T4_OLD = """    // TODO 4: give the graphs' memory back to the driver: the last launch's
    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part
"""
T4_NEW = """    // The executable graphs first: the last `out` outlives them, and is
    // freed on s behind the busy kernel; the trim comes once s is done.
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(device));
"""

C = T
for o, n in [(T1_OLD, T1_NEW), (T2_OLD, T2_NEW), (T3_OLD, T3_NEW), (T4_OLD, T4_NEW)]:
    C = sub(C, o, n)

CORRECT = ("correct",
           "none: step's scratch buffers each freed on the other branch's stream once both sums are done (s frees b after waiting for join, s2 frees a after waiting for fork recorded again after s's sum), then s2 rejoins; produce with auto-free on launch, its kernel found as the one dependent of the graph's root (the allocation); the factor changed each launch through parameters that keep the graph's own pointers for in, out and n and point the factor at the program's int; TODO 4 destroys both executables first, then frees out on s, synchronizes s and trims.",
           "none.",
           "none (written from the lesson and the student file).")

W = [
    ("scratch-sized-for-the-default-mib",
     ("wrong (shows only with MIB above 16: out-of-bounds writes in the graph's memory)",
      "step's two scratch buffers are allocated as 16 << 20 bytes (the default 16 MiB written as a constant) instead of `bytes`.",
      "with the default size they are exactly `bytes` and everything is right; a run with more MiB scales n ints into 16 MiB buffers, writing past each scratch into the graph's other memory (the other branch's buffer, or unmapped address space: an illegal address), and sums what it wrote there.",
      "alpaka-group/mallocMC#150 (a buffer of a fixed size, right for the case it was written for and overrun on others), own"),
     [("CHECK(cudaMallocAsync((void**)&a, bytes, s));", "CHECK(cudaMallocAsync((void**)&a, 16 << 20, s));"),
      ("CHECK(cudaMallocAsync((void**)&b, bytes, s2));", "CHECK(cudaMallocAsync((void**)&b, 16 << 20, s2));")]),
    ("s2-waits-for-fork-before-it-is-recorded-again",
     ("wrong (a free node not ordered after the kernels that use its buffer: the graph's description line shows it, the totals do not)",
      "s2's second wait on fork is queued before s records fork again after its sum, so the wait finds the first record (the start of the capture).",
      "inside a capture a wait takes the event's last record at the time of the call: a's free on s2 then depends on s2's own sum only, not on s's scale and sum of a, and a launch may free a under them; the program's own description counts 2 kernels not before their buffer's free.",
      "sgl-project/sglang#14214 (a stream wait queued before the record it was meant to wait for), CHIP-SPV/chipStar#1523 (cross-stream capture: what a wait joins is the event's record at the time of the call)"),
     [("""    CHECK(cudaEventRecord(fork, s));    // s's sum is done
    CHECK(cudaEventRecord(join, s2));   // s2's sum is done
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
""", """    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaEventRecord(fork, s));    // s's sum is done
    CHECK(cudaEventRecord(join, s2));   // s2's sum is done
""")]),
    ("out-freed-after-the-wait-before-the-trim",
     ("wrong (the trim is not ordered after the last out's free: the after-the-trim figures show it now and then; the record always)",
      "TODO 4 synchronizes s first (for the busy kernel), then queues the free of the last out on s and trims at once.",
      "the free is queued after the host's only wait: nothing makes the host wait for it before cudaDeviceGraphMemTrim, so the trim may find out still allocated and keep its memory (reserved and used not 0), depending on how fast the idle stream runs the free.",
      "luminal-ai/luminal#503 (CUDA may still hold stream-ordered allocations until the stream reaches a synchronization boundary: synchronize, then trim), luminal-ai/luminal#472"),
     [("""    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaStreamSynchronize(s));
""", """    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeAsync(out, s));
""")]),
    ("step-exec-left-by-a-doubled-destroy",
     ("wrong (leak of an executable graph; the output is right, unless the driver crashes on the second destroy of a destroyed handle instead of returning an error)",
      "TODO 4 destroys produce's executable graph twice (a copy of the line left unchanged, its error not checked) and never step's.",
      "step's executable graph is left to the process's exit: a graph the program made and did not destroy, and the second destroy is a call on a handle already gone; every figure printed is right, since step's allocations are all freed inside each launch.",
      "NVIDIA/warp#1429 (executable graphs and their graph allocations left alive), llnl/camp#71 (CUDA objects created and never destroyed)"),
     [("    CHECK(cudaGraphExecDestroy(step));\n    CHECK(cudaGraphExecDestroy(produce));\n",
       "    CHECK(cudaGraphExecDestroy(produce));\n    cudaGraphExecDestroy(produce);\n")]),
]

build("graph-alloc", "cu", "//", C, CORRECT, W)
