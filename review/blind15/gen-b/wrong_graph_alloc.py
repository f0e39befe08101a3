WRONG = [
 dict(slug="produce-instantiated-without-the-auto-free-flag",
  where="the program's own output from two launches on: the second launch of produce fails (invalid value: the first launch's out is still allocated) and the program stops; with LAUNCHES 1 it is right",
  mistake="produce is instantiated with flags 0 (\"auto-free only matters for memory the graph frees itself\"), and nothing frees out between launches",
  why="a graph whose allocation from the last launch is still unfreed may not be launched again unless it was instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch; TODO 2 asks for that flag or a free after each sum, and this file has neither",
  source="NVIDIA/cccl#9394",
  edits=[("cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch)","cudaGraphInstantiateWithFlags(&produce, produce_graph, 0)")]),
 dict(slug="second-branch-frees-before-its-sum",
  where="the program's own output (the step line counts 1 kernel not before its buffer's free) and the record: b's sum reads memory the graph has already freed, each launch; the step total may be right or short",
  mistake="on s2's branch the free of b is queued between the scale and the sum (\"the scale is the last write\")",
  why="a free node must come after every kernel that uses its buffer, readers too; the sum reads b after the free node, so within a launch the graph may hand b's memory to a's branch while the sum still reads it",
  source="own",
  edits=[("""    sum<<<sumBlocks, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(b, s2));""","""    CHECK(cudaFreeAsync(b, s2));
    sum<<<sumBlocks, 256, 0, s2>>>(b, n, totals);""")]),
 dict(slug="trim-before-the-stream-drains",
  where="the program's own output: the after-the-trim line still shows out's MiB reserved (and used), since out's free is still queued behind the busy kernel when the trim runs; the totals are right",
  mistake="TODO 4 calls cudaDeviceGraphMemTrim right after queueing the free of out and destroying the executables, and synchronizes s only after the trim",
  why="the trim gives back only graph memory that is free at that moment; cudaFreeAsync(out, s) has not run yet (s is busy for tens of milliseconds), so out's memory stays reserved and the program never gives it back",
  source="luminal-ai/luminal#503",
  edits=[("""    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(device));""","""    CHECK(cudaDeviceGraphMemTrim(device));
    CHECK(cudaStreamSynchronize(s));""")]),
 dict(slug="scratch-sized-in-ints",
  where="out of bounds (a sanitizer always; the step total wrong or a fault on the GPU now and then): each scratch buffer holds n bytes, a quarter of what scale writes and sum reads",
  mistake="step's two scratch buffers are allocated with n (the number of ints) as the byte count instead of bytes",
  why="cudaMallocAsync takes bytes; scale writes n ints (4 n bytes) into a buffer of n bytes, running over into whatever the graph put after it",
  source="own",
  edits=[("CHECK(cudaMallocAsync(reinterpret_cast<void**>(&b), bytes, s2));","CHECK(cudaMallocAsync(reinterpret_cast<void**>(&b), n, s2));"),
         ("CHECK(cudaMallocAsync(reinterpret_cast<void**>(&a), bytes, s));","CHECK(cudaMallocAsync(reinterpret_cast<void**>(&a), n, s));")]),
]
