"""Each correct file's design line (its header's mistake line and the
MANIFEST's design)."""

SOURCE = "own (written from the student file, its harness, the lesson and the course hints)"

DESIGNS = {
    "stream-pools": (
        "the asking lanes as a cooperative-groups coalesced group; NO SCAN: every asking lane reads every asking lane's size "
        "rank by rank (one g.shfl per rank, the same loop in all of them, O(group) shuffles) and adds the units of the ranks "
        "below its own for its place, all of them for the run; the group's LAST rank moves the offset by an atomicCAS loop "
        "that re-tests the fit against every value it sees and gives up with no store, raises the mark with atomicMax and "
        "adds the group's size to the refusals; the start (or all ones) from the last rank by g.shfl. Host side: ONE "
        "cudaMallocAsync on the FIRST stream holds the n slices and, after them, the n pools' counters PACKED (24 bytes "
        "apart, no padding); ONE event (timing off) recorded on the first stream after it, and every other stream waits on "
        "it (n - 1 stream waits) before clearing its own pool's counters there; the event destroyed at once in init; reset "
        "a memset of the 8-byte offset, used one cudaMemcpyAsync of the three counters, both on the given stream; destroy "
        "one cudaFree of the arena (every stream is done and destroyed)"
    ),
    "stream-ordered-pool": (
        "ONE EVENT PER BLOCK EVER GIVEN BACK, kept in a std::unordered_map keyed by the block's ADDRESS: made (timing off) "
        "the first time the block comes back and recorded again on the giving stream at every give-back, kept until the "
        "pool ends whether the block is listed or handed out (so --keep leaks nothing); the given-back blocks in a std::map "
        "of giving stream to a std::deque; an own take pops s's OLDEST give-back (the deque's front) with no wait; then a "
        "fresh block; a steal picks the other stream whose list is the LONGEST, takes its OLDEST block and queues one "
        "cudaStreamWaitEvent of s on that block's own event; the destructor destroys every event of the map, then frees the "
        "chunk on the setup stream"
    ),
    "ipc-pool": (
        "the parent RUNS AHEAD of the child for the whole run and takes NO answer inside the rounds: each round it records "
        "filled (one interprocess pair for the run, timing off) behind the fill, sends the block's export data and keeps the "
        "block in a std::vector; after the last round it reads ALL the answers in one recv_all (one byte a round, each "
        "checked), queues ONE cudaStreamWaitEvent on freed (whose latest record is then the child's last round's, behind "
        "every free of an import on the child's stream) and frees every kept block on s, newest first; the child's wait on "
        "filled may bind to a LATER round's record (the parent runs ahead), which still comes after its block's fill; the "
        "pool's descriptor first (given send_fd; the parent closes its copy once sent, the child once imported), then both "
        "events' handles in one array; the child imports, waits on filled, reads, frees its import on its stream, records "
        "freed and answers"
    ),
    "graph-alloc": (
        "step captured in RELAXED mode with the two branches INTERLEAVED and s2's allocation first (fork recorded on s, "
        "waited for by s2; allocate b on s2, a on s; scale a then b; sum b then a; free a then b; join recorded on s2 and "
        "waited for by s), instantiated with cudaGraphInstantiateWithFlags(0); the sums on a SMALL grid, one block for every "
        "2048 of scale's, rounded up (8 blocks for 16 MiB, 1 for 1 MiB); produce captured in global mode and instantiated "
        "with the auto-free flag; its kernel node found as the kernel FARTHEST from the graph's roots (the given chain() "
        "helper, longest); the factor set in the executable graph before EVERY launch of produce, the first one too, "
        "through an argument array of my own; TODO 4: the last out freed on s (behind the busy kernel), both executables "
        "destroyed, cudaDeviceSynchronize, cudaDeviceGraphMemTrim"
    ),
    "peer-pool": (
        "ONE event for the run (ready, device 0, recorded on s[0] behind init_weights when device 1 asks for the weights) "
        "and a FRESH event every round made on device 1, recorded once behind produce, waited for by s[0] and DESTROYED "
        "RIGHT AWAY in the same call (at most one alive between the calls; every event call made with device 1 current); "
        "NO event for the pull: w1 from pool[1] by cudaMallocFromPoolAsync on s[1] BEFORE s[1] waits for ready, copied by "
        "cudaMemcpyAsync with cudaMemcpyDefault on s[1] (round 0's event, recorded on s[1] after it, orders main's free of "
        "w0 on s[0]); setup makes both pinned pools in one loop (value-initialised props, handle types none), makes them "
        "current in a second loop and grants device 1 read-write on pool[0]; each chunk from pool[0] by "
        "cudaMallocFromPoolAsync on s[1], reduced and freed on s[0]; finish frees w1 on s[1] and destroys ready"
    ),
    "heap-vs-pool": (
        "each slice filled from its END DOWN: *used counts the bytes taken from the slice's end and a list is placed right "
        "below them (top - (used + size)), so a slice's lists end on the slice's last byte; a slice is sliceBytes rounded up "
        "to 256 and FOUR 256-byte lines more (kSlack 1024); the arena as its base, the stride and its length in bytes; "
        "in_arena by q >= first and q - first < length on integer addresses; take: a compare-and-swap loop with "
        "atomicCAS_block (block scope: the offset is in shared memory) that tests the fit before every try, else device "
        "malloc of the bytes asked; the heap sized from this design's own stride (three times what can spill: each block's "
        "lists plus one largest list less the stride; and 4 MiB), before the buffer; free_arena one cudaFreeAsync on s; "
        "give_back frees only what in_arena disowns"
    ),
    "python-handoff": (
        "BOTH setting names (PYTORCH_CUDA_ALLOC_CONF and PYTORCH_ALLOC_CONF) always written before the import, each rebuilt "
        "from its own entries by a helper: backend:cudaMallocAsync first, the other entries kept in order, every entry whose "
        "KEY is backend dropped; EVERY join an event, wait_stream never used: the consumer waits once for an event recorded "
        "on the default stream (the zeroed sums), each batch for a fresh torch.cuda.Event recorded inside the producer's "
        "block behind the fill (record() on the current stream), and the default stream waits once for an event recorded on "
        "the consumer after the loop; x made with empty and fill_ on the producer; the consumer doubles it with torch.add(x, "
        "x) and writes the float64 sum into sums[b]; x.record_stream(consumer) then del x; release prints "
        "max_memory_allocated and max_memory_reserved, then empty_cache"
    ),
}
