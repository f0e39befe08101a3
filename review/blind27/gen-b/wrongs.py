"""Each wrong file: its exercise, slug, where it shows, the mistake, why it
is wrong, its source, and the edits that make it from the correct file
(every old text occurs exactly once in the correct body)."""


def W(exercise, slug, shows, mistake, why, source, edits):
    return dict(exercise=exercise, slug=slug, shows=shows, mistake=mistake, why=why, source=source, edits=edits)


WRONGS = [
    # ---------------------------------------------------------------- stream-pools
    W("stream-pools", "run-tested-only-for-room-left",
      "other arguments only (GAPS 1): the gapped round's counts, and the record (a run written past its pool's slice)",
      "the leader's compare-and-swap loop runs while the offset is below the capacity (while (old < p.capacity)), "
      "'there is room left', instead of while the whole run still fits where the offset stands",
      "a run must fit whole or not at all: in the default rounds no pool comes near full, and the overflow round's runs "
      "are 32 blocks of 512 bytes, 32 of which fill a slice exactly, so the first refused run finds the offset AT the "
      "capacity and every line is right; in the gapped round (stream_pools 8 1) a run is 24 blocks of 512 (12288 bytes) "
      "and 42 runs leave 8192 bytes: the 43rd warp, which must be refused, is given its run, 4096 bytes past the slice "
      "(into the next pool's slice, or past pool 3's into the counters' tail), the offset stands past capacity, and "
      "'gapped round: 2016 of 6144 requests failed, 2016 counted' where 2112 must (the counts agree with each other, so "
      "the program's own exit status is 0)",
      "related: phil-opp/blog_os#223 (a bump allocator must add up the whole request and test the end, not only that "
      "room is left)",
      [("        while (old <= p.capacity && want <= p.capacity - old) {",
        "        while (old < p.capacity) {")]),
    W("stream-pools", "ready-recorded-before-the-arena-is-allocated",
      "the record only: every printed line right",
      "init records the ready event on the first stream BEFORE it queues the arena's cudaMallocAsync there ('record it "
      "first, then everything on streams[0] is covered'), so the other streams' waits come before the allocation",
      "a wait orders only what was queued before the record: streams 1 to 3 wait for nothing, and their counter "
      "clears, resets, kernels and copies use the arena with no order after its allocation, which is in streams[0]'s "
      "order alone; the pool hands out fresh memory at the call, so every printed line is right, but every use of "
      "pools 1 to 3 is a use not ordered after its allocation",
      "own",
      [("""        CHECK(cudaMallocAsync(&arena_, (size_t)n * slice + (size_t)n * sizeof(PoolCounters), streams[0]));
        counters_ = reinterpret_cast<PoolCounters*>(arena_ + (size_t)n * slice);
        cudaEvent_t ready;
        CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
        CHECK(cudaEventRecord(ready, streams[0]));
""", """        cudaEvent_t ready;
        CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
        CHECK(cudaEventRecord(ready, streams[0]));
        CHECK(cudaMallocAsync(&arena_, (size_t)n * slice + (size_t)n * sizeof(PoolCounters), streams[0]));
        counters_ = reinterpret_cast<PoolCounters*>(arena_ + (size_t)n * slice);
""")]),
    W("stream-pools", "ready-event-never-destroyed",
      "the record only: a leak of one event; every printed line right",
      "init makes the ready event, records it and queues the other streams' waits on it, but never destroys it ('the "
      "waits still need it')",
      "a queued wait keeps what it needs, so the event may be destroyed once the waits are queued, and nothing later "
      "refers to it; left alone it is never destroyed: an event made by the program is still alive at its end",
      "related: llnl/camp#71 (CUDA events created by a wrapper and never destroyed)",
      [("        CHECK(cudaEventDestroy(ready));   // the waits are queued: they keep what they need\n", "")]),
    W("stream-pools", "cas-retried-with-the-stale-offset",
      "the program's own output: the first work round hangs (the run never ends)",
      "the leader's compare-and-swap loop does not take the value the failed atomicCAS returns (old = seen left out), so "
      "it retries with the offset it first read",
      "once another warp of the same pool has moved the offset, a compare with the stale value fails every time and "
      "the offset never comes back to it (only the next round's reset would move it, and that waits for this kernel): "
      "the leader spins forever; 32 warps of a stream ask at once in every round, so the default run hangs in its "
      "first round",
      "related: jonhoo/haphazard#13 (no reload after a failed compare-and-swap: the loop retries a stale value forever)",
      [("            old = seen;\n", "")]),
    # ---------------------------------------------------------------- stream-ordered-pool
    W("stream-ordered-pool", "block-event-recorded-only-when-it-is-made",
      "a race: the record at most steals; the errors count now and then, surely with SPIN_US (bench 16 8 200)",
      "deallocate records the block's event only when it makes it, at the block's first give-back ('the event is the "
      "block's: record it once'), instead of at every give-back",
      "a thief's wait binds to the event's latest record: after a block's first give-back its event still marks that "
      "first give-back, so a steal of a block given back for the second time orders the thief after the giver's work "
      "of long ago, not after the giver's last fill and check of that block; from the second round on every steal "
      "(two or more a round: the busy stream takes three blocks and holds one of its own) takes a block given back "
      "before, so the thief's fill may run while the giver's check still reads it",
      "related: chelsea0x3b/cudarc#386 (records and waits cut to save their cost, the ordering they gave then lost)",
      [("""            ev = events_.emplace(b, e).first;
        }
        CHECK(cudaEventRecord(ev->second, s));
""", """            ev = events_.emplace(b, e).first;
            CHECK(cudaEventRecord(ev->second, s));
        }
""")]),
    W("stream-ordered-pool", "steal-takes-the-newest-but-waits-for-the-oldest",
      "a race: the record at steals from a list of two or more; the errors count now and then, surely with SPIN_US",
      "the steal queues its wait on the event of the giver's OLDEST listed block but takes the NEWEST one (q.back() and "
      "pop_back, 'the last one given back is the one still in cache')",
      "each block's event marks its own give-back: the oldest block's record comes before the newest block's on the "
      "giving stream, so waiting for it does not cover the work queued between the two give-backs, which includes the "
      "newest block's last fill and check; the busy stream gives three blocks back, so the next round's two steals "
      "from it take blocks whose work is not waited for",
      "own",
      [("""        char* p = q.front();
        q.pop_front();
        CHECK(cudaStreamWaitEvent(s, given, 0));""", """        char* p = q.back();
        q.pop_back();
        CHECK(cudaStreamWaitEvent(s, given, 0));""")]),
    W("stream-ordered-pool", "block-event-synchronized-before-it-is-recorded-again",
      "host waits only (the record and the time): every printed line right",
      "deallocate calls cudaEventSynchronize on the block's event before recording it again ('a record still pending "
      "must not be overwritten')",
      "recording an event again while an earlier record is pending is allowed (a wait already queued keeps the record "
      "it bound to), so nothing needs this wait; but the host now waits inside deallocate, at every give-back of a "
      "block given back before, for the work before that earlier give-back, which the pool's contract forbids (neither "
      "call ever makes the host wait); with SPIN_US the waits are long and the streams stop overlapping the host's "
      "queueing",
      "related: cms-sw/cmssw#28537 (whether an event recorded but not yet occurred may be handed out and recorded again)",
      [("""        CHECK(cudaEventRecord(ev->second, s));
        lists_[s].push_back(b);""", """        CHECK(cudaEventSynchronize(ev->second));   // its last record must be done before it is overwritten
        CHECK(cudaEventRecord(ev->second, s));
        lists_[s].push_back(b);""")]),
    W("stream-ordered-pool", "stolen-blocks-event-dropped-from-the-table",
      "the record only: a leak of one event a steal; every printed line right",
      "a steal erases the stolen block's entry from the event table after its wait ('the block changes hands: its next "
      "give-back gets an event of its own'), without destroying the event",
      "the handle is lost: the block's next give-back makes a new event, and the destructor destroys only what the "
      "table still holds; every steal (dozens in the default run) leaves an event that is never destroyed",
      "own",
      [("""        CHECK(cudaStreamWaitEvent(s, given, 0));
        stolen++;""", """        CHECK(cudaStreamWaitEvent(s, given, 0));
        events_.erase(p);   // the block changes hands: its next give-back gets an event of its own
        stolen++;""")]),
    # ---------------------------------------------------------------- ipc-pool
    W("ipc-pool", "answers-taken-with-one-recv",
      "the program's own exit status, by timing (most likely on the default run; never with ROUNDS 1)",
      "the parent reads the child's answers with one recv() of ROUNDS bytes instead of recv_all",
      "a stream socket hands over what has arrived, not what was asked: the parent reaches the read long before the "
      "child has answered every round (it queued all its rounds in microseconds, the child answers as it imports), so "
      "recv returns one or two bytes, the rest of the array stays 0, the check of answer 1 fails and the parent stops "
      "('exporter: answer 1 was 0', exit status 1); only when every answer is already in the socket, or with one "
      "round, is the run right",
      "https://utcc.utoronto.ca/~cks/space/blog/programming/CommonSocketError (short reads are routine on sockets: a "
      "single read of what is wanted usually works in tests)",
      [("    if (!recv_all(sock, answers.data(), answers.size())) {",
        "    if (recv(sock, answers.data(), answers.size(), 0) <= 0) {")]),
    W("ipc-pool", "freed-waited-for-before-the-answers-are-read",
      "the record (a race the default run loses): the parent's frees not ordered after the child's reads; the printed lines most likely right",
      "the parent queues its one wait on freed right after the rounds, before it reads the answers ('the child has "
      "every block by now'), and then frees the kept blocks behind it",
      "a wait binds to the event's latest record at the call: when the parent gets there the child has answered none "
      "or only the first rounds, so the wait covers at most those rounds' frees of their imports (or, freed never "
      "recorded yet, nothing at all); the frees of the later rounds' blocks run while the child's 30 ms reads of them "
      "still go on; nothing is written into the blocks again, so the reads most likely still see the fills",
      "related: sgl-project/sglang#14214 (a wait issued before the record it means to wait for)",
      [("""    std::vector<unsigned char> answers(rounds);
""", """    CHECK(cudaStreamWaitEvent(s, freed, 0));
    std::vector<unsigned char> answers(rounds);
"""), ("""    CHECK(cudaStreamWaitEvent(s, freed, 0));
    for (size_t k""", """    for (size_t k""")]),
    W("ipc-pool", "parent-synchronizes-its-fills-before-the-answers",
      "host waits only (the record): every printed line right",
      "after the rounds the parent synchronizes its stream before it reads the answers ('every fill done before the "
      "answers are counted')",
      "the fills are ordered before the child's reads by filled, on the GPU; this wait orders nothing the events do "
      "not, and the parent's host now waits for its GPU while the child is still in its rounds, which the exercise "
      "forbids (the parent's one host wait is the given one after the sums); the fills take 10 ms each, so it is a "
      "real wait",
      "related: luminal-ai/luminal#322 (a stream synchronized on the host where the stream order already gave what "
      "was needed)",
      [("""    std::vector<unsigned char> answers(rounds);
""", """    CHECK(cudaStreamSynchronize(s));   // every fill done before the answers are counted
    std::vector<unsigned char> answers(rounds);
""")]),
    W("ipc-pool", "descriptor-passed-to-the-import-by-its-address",
      "the program's own output: the child fails at the import, the parent gets no answers",
      "the child passes the pool's descriptor to cudaMemPoolImportFromShareableHandle as &fd, the address of the int, "
      "as the export call takes it, instead of the descriptor itself cast to a pointer",
      "for a POSIX file descriptor the shareable handle IS the descriptor's value ((void*)(uintptr_t)fd); an address "
      "is no descriptor: the import fails, the child stops before any round ('the child failed'), and the parent finds "
      "no answers ('exporter: the child did not answer every round')",
      "related: ROCm/rocm-systems#1564 (an import from a shareable handle given the address of the handle instead of "
      "the handle)",
      [("(void*)(uintptr_t)fd", "&fd")]),
    # ---------------------------------------------------------------- graph-alloc
    W("graph-alloc", "factors-counted-down",
      "nowhere in the printed lines, for any LAUNCHES: only what each launch computes (its kernel's factor) differs",
      "produce's k-th launch is given the factor LAUNCHES + 1 - k (the loop's factor written counting down) instead of "
      "k",
      "the k-th launch must scale by k; counting down gives the same factors in the other order, so the sum of "
      "produce's totals, n x (1 + ... + LAUNCHES), is the same for every LAUNCHES and every MIB, and every printed "
      "line is right; only a check that looks at each launch (its out, or the factor set on the executable before it) "
      "sees that launch 1 scales by 10",
      "own",
      [("            k_arg = k;", "            k_arg = launches + 1 - k;")]),
    W("graph-alloc", "capture-ended-on-the-second-stream",
      "the program's own output: step's capture does not end; the program stops before any graph line",
      "step's capture is ended with cudaStreamEndCapture(s2, ...) ('s2 recorded join last, so it closes the graph') "
      "instead of on s, where it began",
      "a capture must end on its origin stream, the one that began it (the others are brought back by the join): "
      "ending it on s2 fails (capture was not ended in the same stream as it began), step_graph stays empty and the "
      "program stops with the error",
      "own",
      [("    CHECK(cudaStreamEndCapture(s, &step_graph));", "    CHECK(cudaStreamEndCapture(s2, &step_graph));")]),
    W("graph-alloc", "device-synchronized-after-every-produce-sum",
      "host waits only (the record and the time): every printed line right",
      "the launch loop calls cudaDeviceSynchronize after each sum of out ('out must be read before the next launch "
      "frees it')",
      "the next launch of produce is queued on s after the sum, so its auto-free comes after the sum in s's order with "
      "no host wait; the loop now waits on the host LAUNCHES times, which the exercise does not need",
      "own",
      [("            sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);\n",
        "            sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);\n"
        "            CHECK(cudaDeviceSynchronize());   // out is read before the next launch frees it\n")]),
    W("graph-alloc", "sum-grid-rounded-down",
      "other arguments only (MIB 1): the capture (or the launch) fails; every MIB from 2 right",
      "the sums' grid is scale's blocks divided by 2048, ROUNDED DOWN (blocks / 2048)",
      "the sums run on one block for every 2048 of scale's: with the default 16 MiB that is 8, and any MIB from 2 "
      "gives at least 1, so those runs are right; with graph_alloc 10 1 scale has 1024 blocks and the sums get a grid "
      "of 0, which no launch accepts (invalid configuration): the capture of step is invalidated and the program "
      "stops with the error",
      "related: NVIDIA/cuCollections#75 (a kernel launched with a grid size of 0 computed from the input size: "
      "cudaErrorInvalidConfiguration)",
      [("    const int sumBlocks = (blocks + 2047) / 2048;", "    const int sumBlocks = blocks / 2048;")]),
    # ---------------------------------------------------------------- peer-pool
    W("peer-pool", "weights-ready-recorded-without-its-stream",
      "the program's own output: the rounds summed wrong (the weights pulled before they are made)",
      "share_weights records ready with cudaEventRecord(t.ready) and no stream, so on the legacy default stream of "
      "device 0 instead of on s[0] behind init_weights",
      "s[0] is a non-blocking stream: nothing orders it with the legacy stream, which is idle, so ready is done at "
      "once and s[1]'s wait on it waits for nothing: the pull copies w0 while init_weights still spins (50 ms), w1 "
      "holds what the pool's memory held, and every round's chunk is made from it ('0 of 5 rounds summed right', most "
      "likely)",
      "related: lattice/quda#1087 (events recorded on stream 0 where the work runs on another stream)",
      [("    CHECK(cudaEventRecord(t.ready, t.s[0]));", "    CHECK(cudaEventRecord(t.ready));")]),
    W("peer-pool", "round-event-never-destroyed",
      "the record only: a leak of one event a round; every printed line right",
      "one_round makes its fresh event, records it and queues s[0]'s wait on it, but never destroys it",
      "the wait is queued, so the event can go at once and nothing later refers to it; left alone, ROUNDS events are "
      "alive at the end (5 on the default run)",
      "related: tromp/cuckoo#69 (cudaEventCreate without cudaEventDestroy)",
      [("    CHECK(cudaEventDestroy(produced));\n", "")]),
    W("peer-pool", "pool-props-left-uninitialised",
      "the program's own output, most likely: setup's cudaMemPoolCreate fails (or a pool with garbage limits)",
      "setup declares its cudaMemPoolProps without value-initialising it (cudaMemPoolProps props;) and sets only the "
      "allocation type, the handle types and the location",
      "the struct has more fields than those (the Windows security attributes, the maximum size, the usage and the "
      "reserved bytes, which must be 0); left as whatever the stack held, the driver most likely refuses the props "
      "(invalid argument) and the program stops in setup, or makes a pool whose maximum size is garbage and refuses "
      "a chunk later",
      "own",
      [("        cudaMemPoolProps props = {};", "        cudaMemPoolProps props;")]),
    W("peer-pool", "pull-finished-on-the-host-before-the-rounds",
      "host waits only (the record and the time): every printed line right",
      "share_weights synchronizes s[1] after queuing the pull ('w1 complete before device 1 produces from it')",
      "the produces are queued on s[1] after the copy, so they are already ordered after it; the host now waits "
      "(about 50 ms: the copy waits for init_weights) where the harness says a host wait would be seen waiting",
      "related: chelsea0x3b/cudarc#520 (a peer copy that synchronizes the streams on the host where an event would "
      "order them)",
      [("    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDefault, t.s[1]));\n",
        "    CHECK(cudaMemcpyAsync(w1, w0, bytes, cudaMemcpyDefault, t.s[1]));\n"
        "    CHECK(cudaStreamSynchronize(t.s[1]));   // w1 complete before device 1 produces from it\n")]),
    # ---------------------------------------------------------------- heap-vs-pool
    W("heap-vs-pool", "list-placed-below-the-offset-by-its-unrounded-size",
      "the program's own output: lists off a 16-byte boundary",
      "take moves the offset by the list's size rounded up to 16 but places the list at top - (old + bytes), the size "
      "asked, not the rounded one",
      "from the slice's end down a list starts where its own size, rounded, ends the bytes taken: with the unrounded "
      "size it starts 4, 8 or 12 bytes above its rounded place whenever need(i) is not a multiple of 4 (three lists "
      "in four), inside its own bytes but off the 16-byte boundary: 'off a 16-byte boundary: N' with N about three "
      "quarters of the slice lists",
      "related: taichi-dev/taichi#2863 (a sub-allocation's offset not rounded to its alignment: misaligned address)",
      [("            return (int*)(top - (old + size));", "            return (int*)(top - (old + bytes));")]),
    W("heap-vs-pool", "slice-rounded-to-a-page-before-the-slack",
      "other arguments only (e.g. SLICE_PERCENT 50 or 100): the record (an arena larger than allowed); the printed lines right",
      "make_arena rounds sliceBytes up to a whole 4 KiB page before adding the four lines of slack, instead of to 256",
      "a slice may be at most 4 KiB larger than sliceBytes rounded up to 256: with the default 80% (26803 bytes) the "
      "page adds 1792 bytes and the slack 1024, 2816 in all, within the bound; with heap_vs_pool 100000 4 50 (16752 "
      "bytes) the page adds 3584 and the slices are 4608 bytes over, with 100% (33504) 3328 and 4352 over: the "
      "arena's allocation is larger than the contract allows, though every list, sum and count is right",
      "own",
      [("    const size_t stride = (sliceBytes + 255) / 256 * 256 + kSlack;",
        "    const size_t stride = (sliceBytes + 4095) / 4096 * 4096 + kSlack;")]),
    W("heap-vs-pool", "arena-freed-after-a-host-wait-on-s",
      "host waits only (the record): every printed line right",
      "free_arena synchronizes s before it queues the buffer's cudaFreeAsync ('every round done before the buffer "
      "goes')",
      "cudaFreeAsync on s already comes after every round queued on s; the extra wait makes the host wait for all the "
      "rounds inside free_arena, which is meant to give the buffer back in s's order without one",
      "own",
      [("""    // TODO 3
    cudaError_t e = cudaFreeAsync(a.base, s);""", """    // TODO 3
    cudaError_t w = cudaStreamSynchronize(s);   // every round done before the buffer goes
    if (w != cudaSuccess) return w;
    cudaError_t e = cudaFreeAsync(a.base, s);""")]),
    W("heap-vs-pool", "cas-loop-tests-the-fit-after-its-first-try",
      "a race, the program's own output most likely: lists overwritten, or a fault at their give-back",
      "take's compare-and-swap loop is written do { ... } while (fits): the first try is made before the fit is tested",
      "a thread that reads the offset when the slice is already too full for its list still tries once, and when no "
      "other thread moves the offset in between its try succeeds: the offset passes the stride and the list is placed "
      "below the slice's start, over the top of the slice before (another block's first lists) or, for block 0, "
      "before the arena; with 80% slices every block runs out of room while its late threads still ask, so lists not "
      "holding what they should, and a pointer below the arena sent to the device free(), are most likely",
      "related: microsoft/snmalloc#155 (a bump pointer's compare-and-swap loop whose test was wrong, unnoticed because "
      "no test raced on it)",
      [("""    while (old + size <= a.stride) {
        const unsigned long long seen""", """    do {
        const unsigned long long seen"""), ("""        old = seen;
    }
    return (int*)malloc(bytes);""", """        old = seen;
    } while (old + size <= a.stride);
    return (int*)malloc(bytes);""")]),
    # ---------------------------------------------------------------- python-handoff
    W("python-handoff", "backend-entry-matched-on-the-whole-entry",
      "other settings only (PYTORCH_CUDA_ALLOC_CONF or PYTORCH_ALLOC_CONF already naming a backend): 'allocator backend: native', most likely",
      "the helper drops an entry only when the WHOLE entry is 'backend' (entry.strip() != 'backend'), not when its key "
      "is",
      "an entry is key:value: 'backend:native' is never equal to 'backend', so it is kept after the "
      "backend:cudaMallocAsync put first; with no setting in the environment (the default run) the result is right, "
      "but a run with PYTORCH_CUDA_ALLOC_CONF=backend:native gets two backend entries, of which PyTorch keeps the last "
      "(most likely): the native cache, and the allocator's calls are no longer stream-ordered",
      "own",
      [('        if entry.strip() and key != "backend":', '        if entry.strip() and entry.strip() != "backend":')]),
    W("python-handoff", "fill-event-recorded-after-the-producer-block",
      "a race: the record at every batch (the consumer's read not ordered after the fill, nor after x's allocation); the sums now and then",
      "the batch's event is made and recorded one level out, after the producer's with block, where record() with no "
      "stream records on the current stream, the default one",
      "record() takes the current stream: outside the block that is the default stream, which has nothing of the "
      "producer's in its order, so the consumer's wait on the event does not wait for the fill: it may double and "
      "sum x before or while the producer fills it, and the allocation on the producer is not before the read either",
      "related: csarofeen/pytorch#2521 (events recorded on the current stream instead of the stream the kernels run "
      "on)",
      [("""            filled = torch.cuda.Event()
            filled.record()  # on the current stream: the producer
        with torch.cuda.stream(consumer):""", """        filled = torch.cuda.Event()
        filled.record()  # on the current stream: the producer
        with torch.cuda.stream(consumer):""")]),
    W("python-handoff", "consumer-never-waits-for-the-zeroed-sums",
      "a race the default run usually wins: the record (the consumer writes sums with nothing ordering it after their allocation and zeroing on the default stream)",
      "pipeline records the zeroed event on the default stream but never makes the consumer wait for it ('the zeros "
      "were queued long before')",
      "sums is allocated and zeroed on the default stream, and the consumer writes sums[b]: without the wait nothing "
      "orders those writes after the zeroing (and the allocation), so a late zero could wipe a sum; the zeroing is "
      "tiny and queued first, so the printed sums are right on nearly every run",
      "related: flashinfer-ai/flashinfer#5027 (a side stream that uses tensors made on the default stream without "
      "wait_stream first)",
      [("    consumer.wait_event(zeroed)\n", "")]),
    W("python-handoff", "cache-emptied-after-every-batch",
      "host waits only (the record and the time): every printed line right",
      "the loop calls torch.cuda.empty_cache() after each del x ('give x's memory back at once')",
      "with backend:cudaMallocAsync, empty_cache synchronizes the device before it trims the pool: the host now waits "
      "for both streams at every batch, and the streams no longer run side by side; x's memory goes back to the pool "
      "in stream order without it",
      "related: batra-mlp-lab/visdial-challenge-starter-pytorch#34 (empty_cache moved from every batch to every epoch "
      "for speed)",
      [("        del x\n", "        del x\n        torch.cuda.empty_cache()  # give x's memory back at once\n")]),
]
