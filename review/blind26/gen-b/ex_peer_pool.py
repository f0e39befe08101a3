ID = "peer-pool"
EXT = "cu"
STUDENT = "exercises/day075/peer_pool.cu"
DESIGN = ("device 0 PUSHES the weights: share_weights allocates w1 on s[1] with a plain cudaMallocAsync (device 1's current pool) "
          "and records 'held' there; s[0] waits for held and queues the cudaMemcpyPeerAsync ON DEVICE 0'S STREAM, behind init_weights "
          "(w0 read in the order of the stream that wrote it and that main frees it on, so no event is needed for w0's free), records "
          "'pushed' on s[0], and s[1] waits for pushed before its first produce; three events made in setup, each on the device whose "
          "stream records it (held and produced on device 1, pushed on device 0); setup makes both pinned pools (located on their "
          "device) in one loop, makes them current in a second, and grants device 1 read-write on pool[0]; each round: the chunk by "
          "cudaMallocFromPoolAsync from pool[0] on s[1], produce, produced recorded again on s[1], s[0] waits for it at once, reduce, "
          "the chunk freed on s[0]; finish frees w1 on s[1] and destroys the three events")
WRONGS = [
    dict(slug="produce-never-waits-for-the-push",
         shows="the program's own output: every round reads w1 before device 0's copy has filled it (init_weights spins 50 ms, the five rounds take some 15): 'k of 5 rounds summed right' with k most likely 0; the record: device 1's reads of w1 not ordered after the copy that writes it",
         mistake="share_weights records pushed on s[0] after the copy but never makes s[1] wait for it, 'the peer copy is done by the time device 1 needs it'",
         why="a copy queued on device 0's stream is ordered only in that stream: device 1's produce kernels start as soon as s[1] gets to them and read w1 while the copy is still behind the 50 ms init_weights on s[0]",
         source="related: torch/cutorch#192 (peer copies on non-default streams are not ordered with the other device's work unless an event orders them)",
         edits=[("    CHECK(cudaSetDevice(1));\n    CHECK(cudaStreamWaitEvent(t.s[1], t.pushed, 0));\n    CHECK(cudaSetDevice(0));\n    return w1;",
                 "    return w1;")]),
    dict(slug="push-not-ordered-after-w1s-allocation",
         shows="the record only: device 0's copy writes w1 with nothing ordering it after w1's allocation on s[1]; every printed line right (the allocation is queued long before the copy, behind a 50 ms kernel, runs)",
         mistake="s[0] does not wait for held before the copy ('the pointer is already there, cudaMallocAsync returned it')",
         why="a stream-ordered allocation is usable only in the order of the stream it was made on, or after a wait on that stream; the copy on s[0] is not in s[1]'s order, so its write into w1 is a use of memory before its allocation is ordered",
         source="own",
         edits=[("    CHECK(cudaStreamWaitEvent(t.s[0], t.held, 0));\n    CHECK(cudaMemcpyPeerAsync", "    CHECK(cudaMemcpyPeerAsync")]),
    dict(slug="pushed-recorded-before-the-copy",
         shows="a race the default run wins (4 MiB copy of some tens of microseconds, produce spins 3 ms before it reads), lost with big chunks (peer_pool 5 2048: a 2 GiB copy takes longer than the spin): rounds summed wrong; the record always: produce reads w1 not ordered after the copy",
         mistake="pushed is recorded on s[0] right before the cudaMemcpyPeerAsync instead of after it (the record line moved up one call)",
         why="an event marks the work queued on its stream before the record: recorded before the copy it covers init_weights only, so s[1]'s wait lets produce start while the copy into w1 is still running",
         source="own",
         edits=[("    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[0]));\n    CHECK(cudaEventRecord(t.pushed, t.s[0]));\n",
                 "    CHECK(cudaEventRecord(t.pushed, t.s[0]));\n    CHECK(cudaMemcpyPeerAsync(w1, 1, w0, 0, bytes, t.s[0]));\n")]),
    dict(slug="held-event-never-destroyed",
         shows="the record only: a leak of one event (device 1's held) at the end; every printed line right",
         mistake="finish destroys produced and pushed but not held ('held was only for the push, long over')",
         why="every event setup made must be destroyed by finish; held is made in setup on device 1 like produced and outlives its one use",
         source="own",
         edits=[("    CHECK(cudaEventDestroy(t.held));\n", "")]),
]
