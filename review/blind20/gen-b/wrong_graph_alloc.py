WRONG = [
    dict(slug="produce-instantiated-without-auto-free",
         shows="the program's own output: the second cudaGraphLaunch of produce fails (a graph whose allocation from the launch before is still unfreed cannot be launched again: invalid value), so the program stops after the two describe lines, before any total",
         mistake="produce is instantiated with flags 0, like step, 'the flag is only an optimisation', and out is still never freed by hand between launches",
         why="a graph with an allocation node that its own graph never frees may only be launched again once that allocation is freed: by the auto-free flag, or by a cudaFreeAsync of out after each sum; with neither, the second launch is refused",
         source="related: NVIDIA/cccl#9394 (graphs with allocation nodes freed outside the graph instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch so that they can be launched again)",
         edits=[("""    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));""",
                 """    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, 0));""")]),
    dict(slug="a-allocated-before-the-fork",
         shows="the program's own output, the step line: 'longest chain 5 nodes' where 4 are wanted (s2's whole branch now hangs from a's allocation node); the totals, the memory lines and the trim right",
         mistake="step's capture allocates a on s first, 'allocate everything up front', and records fork after it, so s2 joins the capture behind the allocation of s's buffer",
         why="fork marks the point s2 is ordered after; recorded after a's allocation, it makes the second branch depend on the first one's allocation node, where the exercise wants two branches that do not depend on each other",
         source="own",
         edits=[("""    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, s));""", """    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    CHECK(cudaEventRecord(fork, s));"""),
                ("""    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
""", """    CHECK(cudaEventRecord(join, s2));
""")]),
    dict(slug="step-launched-on-s2",
         shows="the program's own output: step's launches, on s2, are not ordered after s's 50 ms nap, ones and the memset of totals: they read in before it holds ones and add into totals[0] before it is zeroed, so 'step total 0' (or another wrong value) where 5 n launches is wanted; produce total right; the record: uses of in and totals not ordered after their writes",
         mistake="the launch loop launches step on s2, 'step's second branch runs on s2 anyway', instead of on s like produce",
         why="a graph launch is ordered only in the stream it is launched on; s2 (non-blocking) never waits for s, so step runs 50 ms before in and totals are ready, and the copy of the totals on s is not ordered after it either",
         source="own",
         edits=[("""        CHECK(cudaGraphLaunch(step, s));""", """        CHECK(cudaGraphLaunch(step, s2));""")]),
    dict(slug="capture-info-read-before-the-scale-launch",
         shows="the program's own output: the node taken is produce's allocation node, so cudaGraphKernelNodeGetParams on it fails (invalid value) and the program stops after the step line, before the produce line",
         mistake="the capture's dependency set is read right after out's cudaMallocAsync and the scale launch written after the block, 'take the node where out is made'",
         why="cudaStreamGetCaptureInfo gives the nodes the NEXT captured call will depend on: read before scale's launch that is the allocation node, not a kernel node",
         source="own",
         edits=[("""    CHECK(cudaMallocAsync((void**)&out, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
    {""", """    CHECK(cudaMallocAsync((void**)&out, bytes, s));
    {"""),
                ("""        scale_node = last[0];
    }
""", """        scale_node = last[0];
    }
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
""")]),
]
