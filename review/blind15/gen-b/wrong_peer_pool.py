WRONG = [
 dict(slug="both-pools-located-on-device-0",
  where="the program's own output: setup stops at cudaDeviceSetMemPool for device 1, which refuses a pool of device 0, before any line is printed",
  mistake="the pools' properties name location id 0 for both pools (\"the location is where the host starts\") instead of the device each pool is made for",
  why="a pool belongs to the device in its location; the second pool is a second pool of device 0, which cannot be made device 1's current pool, and device 1 has no pool of its own",
  source="own",
  edits=[("        props.location.id = d;\n","        props.location.id = 0;\n")]),
 dict(slug="chunk-allocated-on-device-0s-stream",
  where="the record: each chunk's allocation is in s[0]'s order, and device 1's produce on s[1] writes it with nothing ordering it after the allocation (a use before its allocation was ordered); the sums are usually right",
  mistake="one_round allocates the chunk from pool[0] on s[0], with device 0 still current (\"device 0's pool, device 0's stream\"), and then produces into it on s[1]",
  why="stream-ordered memory is valid only in the allocating stream's order; s[1] never waits for s[0] before produce, so it may write memory whose allocation (or the free of the round before, on s[0]) has not happened yet in that order",
  source="own",
  edits=[("""    CHECK(cudaSetDevice(1));
    cudaEvent_t made = nullptr;""","""    int* chunk = nullptr;
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[0]));
    CHECK(cudaSetDevice(1));
    cudaEvent_t made = nullptr;"""),
   ("""    int* chunk = nullptr;
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));
""","")]),
 dict(slug="round-events-never-destroyed",
  where="the record only: a leak of events, one each round (5 in the default run); every line printed is right",
  mistake="finish destroys ready and pulled but not the events one_round made, one a round (\"they are only markers\")",
  why="every event made is a resource that must go back; finish is to give back whatever setup and the rounds made except the pools and streams",
  source="own",
  edits=[("    for (cudaEvent_t e : t.made) CHECK(cudaEventDestroy(e));\n","")]),
 dict(slug="made-recorded-before-produce",
  where="the program's own output: device 0 reduces each chunk before device 1's 3 ms produce has written it, so the rounds are summed wrong; the record: unordered uses",
  mistake="one_round records the round's event on s[1] right after the allocation and before launching produce",
  why="an event marks the work queued before the record; recorded before produce, the wait on s[0] orders reduce after the allocation only, not after the writes",
  source="own",
  edits=[("""    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(made, t.s[1]));""","""    CHECK(cudaEventRecord(made, t.s[1]));
    produce<<<kBlocks, kThreads, 0, t.s[1]>>>(chunk, w1, n, r, kProduceNs);
    CHECK(cudaGetLastError());""")]),
]
