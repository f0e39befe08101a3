"""Each wrong file of blind24 B: its exercise, slug, header lines and edits
(old text of the correct file, new text). make_wrong.py applies them."""
WRONGS = []


def W(ex, slug, where, mistake, why, source, *edits):
    WRONGS.append(dict(ex=ex, slug=slug, where=where, mistake=mistake, why=why, source=source, edits=list(edits)))


# ---- python-handoff ----
W("python-handoff", "scratch-made-inside-the-first-producer-block",
  "the record only: the printed lines right",
  "the consumer's scratch y is made lazily inside the first batch's `with torch.cuda.stream(producer)` block ('made where the first batch needs it') instead of inside a consumer block before the loop",
  "y is then allocated on the producer stream, and the allocator frees it in its allocation stream's order: the `del y` at the end queues its free on the producer, which nothing orders after the consumer's last doubling and sum that read and write y (main waits for the consumer, the producer does not); the uses of y are ordered after its allocation (the consumer waits for each fill event, recorded after it), so only the free is unordered, and no later allocation is ordered after the consumer ahead of it: every printed line right, the record a free while another stream may still use the memory",
  "own",
  ('''    with torch.cuda.stream(consumer):
        y = torch.empty(N, dtype=torch.float32, device="cuda")  # the consumer's scratch, reused by every batch
    for b in range(batches):
        with torch.cuda.stream(producer):
''', '''    y = None
    for b in range(batches):
        with torch.cuda.stream(producer):
            if y is None:
                y = torch.empty(N, dtype=torch.float32, device="cuda")  # the consumer's scratch, made with the first batch
'''))
W("python-handoff", "slot-filled-through-item",
  "the record only: a host wait at every batch; the printed lines right",
  "each batch's sum is stored with sums[b] = y.sum(dtype=torch.float64).item(), 'the slot takes a number', instead of sums[b].copy_(...) of the 0-dim tensor",
  ".item() copies the sum to the host and waits for the consumer stream to reach it, every batch: the host stops inside pipeline while the consumer doubles and sums (the producer cannot get ahead by more than a batch), which the exercise forbids; the value written back is exact, so every line right",
  "related: openvdb/fvdb-core#586 (.item() on CUDA tensors in a loop, one host synchronisation each)",
  ('''            sums[b].copy_(y.sum(dtype=torch.float64))''', '''            sums[b] = y.sum(dtype=torch.float64).item()'''))
W("python-handoff", "consumer-polls-the-fill-event",
  "the record only: a host wait (a polling loop, no synchronize call) at every batch, and uses of x on the consumer not ordered after its fill in stream order; the printed lines right",
  "instead of consumer.wait_event(filled), the host spins on `while not filled.query(): pass` before queuing the consumer's work, 'start the consumer once the fill is done'",
  "the host now waits for the producer at every batch (a busy loop: no cudaStreamSynchronize or cudaEventSynchronize for a grader to count), and the consumer stream itself is never ordered after the producer: the consumer's reads of x are ordered after x's allocation and fill only by the host's timing, not by any stream dependency the allocator or a checker can see",
  "own",
  ('''        consumer.wait_event(filled)''', '''        while not filled.query():
            pass'''))
W("python-handoff", "scratch-marked-with-record-stream-instead-of-x",
  "a race: the sums line short by timing (the producer, which waits for nothing, runs ahead of the consumer, so the reuse lands in many runs); the record always (x freed on the producer while the consumer may still read it)",
  "the consumer's block calls y.record_stream(consumer) on its scratch tensor, 'the tensor the consumer uses', instead of x.record_stream(consumer)",
  "y was made on the consumer, so marking it changes nothing; x, made on the producer, is dropped unmarked, so its memory is freed in the producer's order only and may be handed to the next batch's x while the consumer's torch.mul still reads it; the next fill can then overwrite it first",
  "related: NVIDIA/cudnn-frontend#1186 (a side-stream copy records the tensor it writes, not the one it reads)",
  ('''            x.record_stream(consumer)''', '''            y.record_stream(consumer)'''))

# ---- peer-pool ----
W("peer-pool", "weights-freed-on-the-pull-stream",
  "the record only (most likely): every printed line right",
  "finish gives w1 back with cudaFreeAsync(w1, t.pull), 'free it on the stream that allocated it', instead of on s[1]",
  "the pull stream is ordered before the rounds (s[1] waits for pulled) but after none of them: the free of w1 is queued behind the copy only, while the last rounds' produce kernels on s[1] may still read w1 (each spins 3 ms first); nothing is allocated from device 1's pool afterwards, so the memory is most likely not reused and the sums stay right, but the free is not ordered after the reads",
  "related: NVIDIA/cccl#1637 (review: memory given back on a stream must not still be in use on another stream; the caller orders them)",
  ("""    CHECK(cudaFreeAsync(w1, t.s[1]));   // behind the last produce that reads it""",
   """    CHECK(cudaFreeAsync(w1, t.pull));   // on the stream that allocated it"""))
W("peer-pool", "weights-allocated-on-s1-but-copied-on-the-pull-stream",
  "the record only: every printed line right",
  "share_weights allocates w1 with cudaMallocAsync on t.s[1], 'device 1's stream', and still queues the copy into it on the pull stream",
  "the copy on pull is ordered after ready (device 0's weights) but not after w1's allocation, which is in s[1]'s order: a use of stream-ordered memory on a stream that is not ordered after its allocation; on an idle s[1] the allocation is done at once, so the copy lands and every line is right",
  "related: rapidsai/rmm#2015 (when a stream-ordered allocation may be used, and on which stream)",
  ("""    CHECK(cudaMallocAsync((void**)&w1, bytes, t.pull));   // device 1's current pool""",
   """    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));   // device 1's current pool, on device 1's stream"""))
W("peer-pool", "pull-stream-made-after-device-0-is-current-again",
  "default output: an error and the program stops in share_weights",
  "setup switches back to device 0 before creating the pull stream (the cudaSetDevice(0) written one line early), so the stream belongs to device 0 while its events pulled and produced were made on device 1",
  "a stream belongs to the device current when it is made: w1 is then allocated from device 0's current pool (pool[0]), and recording pulled, an event of device 1, on a stream of device 0 fails (an invalid resource handle); the CHECK stops the program before the rounds",
  "own",
  ("""    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamCreateWithFlags(&t.pull, cudaStreamNonBlocking));   // on device 1, like its events
    CHECK(cudaSetDevice(0));
""", """    CHECK(cudaSetDevice(1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreateWithFlags(&t.pull, cudaStreamNonBlocking));   // device 1's copy stream
"""))
W("peer-pool", "pulled-waited-for-by-device-0s-stream",
  "default output: most rounds summed wrong (produce reads w1 before the copy fills it); the record: uses of w1 not ordered after the copy",
  "share_weights queues cudaStreamWaitEvent(t.s[0], t.pulled, 0), 'device 0 must know the weights have arrived', instead of making s[1] wait",
  "s[1], whose produce kernels read w1, is never ordered after the copy on pull, which itself waits 50 ms for init_weights; the rounds (3 ms each) run before it and read whatever w1's memory held; s[0] waiting for pulled orders only the reduces",
  "own",
  ("""    CHECK(cudaStreamWaitEvent(t.s[1], t.pulled, 0));   // every produce reads w1 after the copy""",
   """    CHECK(cudaStreamWaitEvent(t.s[0], t.pulled, 0));   // device 0 knows the weights have arrived"""))

# ---- graph-alloc ----
W("graph-alloc", "host-waits-on-s2-before-the-trim",
  "default output by timing (most runs): 'after the trim: graph memory reserved 16 MiB' or more, not 0, while busy still runs; the record: a trim while a graph allocation is still live",
  "TODO 4 waits with cudaStreamSynchronize(s2), 'the capture's second stream', instead of s",
  "s2 holds nothing outside a capture: it is idle, so the host goes on at once while busy (tens of milliseconds) and the last out's free behind it are still queued on s; the trim then finds the last out still allocated and the launches' memory still in use, and keeps it",
  "own",
  ("""    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGraphMemTrim(device));""", """    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaDeviceGraphMemTrim(device));"""))
W("graph-alloc", "a-freed-on-s-after-the-join",
  "default output (the step graph's line only): its longest chain is 5 nodes, not 4; totals and memory lines right",
  "s's branch frees a only after s waits for join, 'free on the origin stream once everything is back', instead of right after its sum",
  "a's free node then depends on the whole of s2's branch (free b), so s's branch no longer ends on its own: the graph keeps a allocated until b's branch is done and its longest chain grows by one; the branches still run side by side and every total is right, but the graph is not the one asked for (each branch allocates, uses and frees its scratch)",
  "own",
  ("""    sum<<<sumBlocks, 256, 0, s>>>(a, n, totals);
    CHECK(cudaFreeAsync(a, s));
""", """    sum<<<sumBlocks, 256, 0, s>>>(a, n, totals);
"""),
  ("""    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaStreamEndCapture(s, &step_graph));""", """    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaStreamEndCapture(s, &step_graph));"""))
W("graph-alloc", "auto-free-flag-given-to-step",
  "default output: an error at produce's second launch and the program stops; with LAUNCHES 1 every line right",
  "step is instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch and produce with 0, the two flags swapped, 'the graph whose branches allocate is the one that frees'",
  "step frees its own scratch inside the graph and needs no flag; produce leaves out allocated at the end of each launch, and without the flag a launch of produce while the last one's out is still allocated is refused (the graph's allocation is still live), so the second launch returns an error",
  "own",
  ("""    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));""",
   """    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));"""),
  ("""    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));""",
   """    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, 0));"""))
W("graph-alloc", "previous-launch-polled-before-each-factor-change",
  "what the program does only: a host wait at every launch after the first, by a polling loop (no synchronize call); every printed line right",
  "before each cudaGraphExecKernelNodeSetParams the host spins on cudaEventQuery of an event recorded behind the previous launch's sum, 'a node's parameters may not change while the graph still runs'",
  "changing an executable graph's node parameters affects only launches made after the call; launches already queued keep the values they were launched with, so there is nothing to wait for: the loop makes the host wait for the GPU at every launch, which a grader that counts synchronize calls does not see",
  "own",
  ("""    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
""", """    cudaEvent_t launched;
    CHECK(cudaEventCreateWithFlags(&launched, cudaEventDisableTiming));
    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        // the node may not change while the last launch still runs
        if (k > 1)
            while (cudaEventQuery(launched) == cudaErrorNotReady) {}
"""),
  ("""        sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);
    }
""", """        sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);
        CHECK(cudaEventRecord(launched, s));
    }
    CHECK(cudaEventDestroy(launched));
"""))

# ---- ipc-pool ----
W("ipc-pool", "free-queued-before-the-wait-on-freed",
  "the record only: every printed line right",
  "after the child's answer the parent queues cudaFreeAsync(block, s) first and only then cudaStreamWaitEvent(s, freed[r]), 'free it, and hold s until the child is done'",
  "a wait orders only what is queued after it: the free is now ordered after the fill alone, while the child may still read the block (30 ms) and free its import; the next round's allocation and fill on s come after the wait, so the block is not written again before the child is done and every printed line is right, but the parent's free itself is unordered with the child's use",
  "related: NVIDIA/cccl#1637 (review: memory given back on a stream must not still be in use on another stream; the caller orders them)",
  ("""        CHECK(cudaStreamWaitEvent(s, roundFreed[r], 0));
        CHECK(cudaFreeAsync(block, s));
""", """        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaStreamWaitEvent(s, roundFreed[r], 0));
"""))
W("ipc-pool", "freed-opened-from-the-filled-handle",
  "default output by timing (most runs): 'the block stayed the child's until it read it again' below the rounds; the record: the parent's free not ordered after the child's read (should the driver refuse to open one handle twice in a process, the child fails at once instead: 'the child failed')",
  "the child opens its 'freed' event from handles[r].filled, the line copied from the one above it, so it records the parent's filled[r] after its free, and freed[r] is never recorded",
  "the parent's wait on freed[r], an event never recorded, is satisfied at once: the block is freed behind the fill only, the next round's allocation on s gets it back and its fill (10 ms) overwrites it while the child's use kernel is still in its 30 ms between the two reads; the first read is still ordered after the fill, so only the second sum goes wrong",
  "own",
  ("""        CHECK(cudaIpcOpenEventHandle(&roundFreed, handles[r].freed));""",
   """        CHECK(cudaIpcOpenEventHandle(&roundFreed, handles[r].filled));"""))
W("ipc-pool", "round-events-never-destroyed-by-the-parent",
  "the record only: 2 x ROUNDS events never destroyed; every printed line right",
  "the parent's rounds leave each round's pair alone after the free, 'the child closes them', and nothing destroys them later",
  "the child's cudaEventDestroy closes only its own handles; the events belong to the parent, which made them, and only its cudaEventDestroy gives them back: every round's pair leaks (the given teardown destroys filled and freed, which stay null in this design)",
  "own",
  ("""        CHECK(cudaEventDestroy(roundFilled[r]));   // the child has closed its handles of both
        CHECK(cudaEventDestroy(roundFreed[r]));
""", ""))
W("ipc-pool", "child-synchronizes-freed-before-closing-it",
  "the record only: a host wait in the child every round (about the use kernel's 30 ms); every printed line right",
  "before closing its handles the child calls cudaEventSynchronize(roundFreed), 'an event must be complete before it is destroyed'",
  "cudaEventDestroy of an event whose record has not completed returns at once and releases it once the work is done; the synchronize makes the child's host wait for its own use kernel every round, which the exercise forbids (the child's one host wait is the copy of the sums at the end)",
  "related: zama-ai/tfhe-rs#3186 (review: an event destroyed before it completes taken to lose its wait, so synchronized first)",
  ("""        CHECK(cudaEventRecord(roundFreed, s));
        CHECK(cudaEventDestroy(roundFilled));""", """        CHECK(cudaEventRecord(roundFreed, s));
        CHECK(cudaEventSynchronize(roundFreed));   // complete before it is destroyed
        CHECK(cudaEventDestroy(roundFilled));"""))

# ---- heap-vs-pool ----
W("heap-vs-pool", "group-run-sized-by-the-whole-asking-mask",
  "default output: 'blocks that sent a list to the heap while their slice had room for it' above 0, lists from the heap far more than needed, most likely lists without memory too",
  "the group's leader moves the offset by size * __popc(asking), 'the lanes that ask', instead of size * __popc(group), the lanes of its own size group",
  "every group reserves room for the whole warp's asking lanes at its own size (a group of one lane, the common case with sizes from 16 to 256 bytes, takes up to 32 times its list): the slice is used up after a few warps, with gaps between the lists kept, and the rest of the block goes to the heap, which was sized for the true spill only",
  "own",
  ("""    if (lane == leader) old = atomicAdd(used, size * __popc(group));""",
   """    if (lane == leader) old = atomicAdd(used, size * __popc(asking));"""))
W("heap-vs-pool", "offset-zeroing-fenced-by-syncwarp-only",
  "a race: by timing, lists taken before the block's offset is zeroed (a slice read from a stale offset: lists sent to the heap with room left, or lists past where the block's own lists start); the default run most likely right, the record a shared read before its write",
  "build_lists fences thread 0's zeroing of the shared offset with __syncwarp() instead of __syncthreads(), 'only thread 0 writes it, its warp is enough'",
  "__syncwarp orders the zeroing only for thread 0's own warp; the block's other seven warps may call take before warp 0 has written 0, and then add to whatever the shared memory held (often what the last block on that multiprocessor left: a full slice), so their lists go to the heap or land where they should not",
  "own",
  ("""    if (threadIdx.x == 0) used = 0;
    __syncthreads();""", """    if (threadIdx.x == 0) used = 0;
    __syncwarp();"""))
W("heap-vs-pool", "device-synchronized-after-setting-the-heap-limit",
  "the record only: a host wait (cudaDeviceSynchronize) in make_arena; every printed line right",
  "make_arena calls cudaDeviceSynchronize() right after cudaDeviceSetLimit, 'so that the new heap size is in force before anything is queued'",
  "the limit is in force for every kernel launched after the call returns; nothing needs to be waited for, and the synchronize makes the host wait for the work main already queued on s (its allocations and memsets) inside a function that is to work in s's order only",
  "related: kokkos/kokkos#4026 (a cudaDeviceSynchronize added right after a stream-ordered allocation call)",
  ("""    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap);
    if (e != cudaSuccess) return e;
""", """    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap);
    if (e != cudaSuccess) return e;
    e = cudaDeviceSynchronize();   // the new heap size in force before anything is queued
    if (e != cudaSuccess) return e;
"""))
W("heap-vs-pool", "group-placed-from-the-lanes-up-to-its-own",
  "default output: lists not holding what they should and rounds summed wrong (overlapping lists); the first slot of each group's run left empty",
  "a lane's rank in its group counts the group's lanes up to and including its own, group & ((2u << lane) - 1), instead of the lanes below it",
  "every list starts one list later than its group reserved: the group's first slot stays empty and its last lane's list runs past the group's run into the next group's (or the next warp's) lists, which are written at the same time: overlapping lists, whose contents depend on which thread wrote last",
  "own",
  ("""    const unsigned below = group & ((1u << lane) - 1);""",
   """    const unsigned below = group & ((2u << lane) - 1);"""))

# ---- stream-ordered-pool ----
W("stream-ordered-pool", "adopted-blocks-given-on-without-a-fresh-record",
  "a race, other arguments only: with --handoff (a stream's blocks are given back on the next stream, so an adopter's own event may never be recorded again) or --keep (the last round gives nothing back), a third stream adopts blocks from an adopter's lane without waiting for the first giver's work; the record then sees an unordered use, the errors line only by timing (likeliest with SPIN_US); in the default run every adopter gives back on its own stream before anyone else takes, and that record covers the adoption",
  "the adoption queues s's wait on the giver's event but does not record s's own event after it, 'the wait already made s safe'",
  "s is safe, but the adopted blocks now sit on s's lane, and a stream that later adopts s's lane waits only on s's event, whose last record may come before s's wait on the first giver (or was never made, when s has given nothing back yet: a wait on it is no wait at all); that stream can then write a block the first giver's kernels still read",
  "related: NVIDIA/cub#156 (a block's event that does not cover the work of every stream the block passed through)",
  ("""        CHECK(cudaStreamWaitEvent(s, from->second.event, 0));
        CHECK(cudaEventRecord(to.event, s));
""", """        CHECK(cudaStreamWaitEvent(s, from->second.event, 0));
"""))
W("stream-ordered-pool", "adopted-blocks-counted-as-own",
  "default output (the counts line): 'N stolen' far too low (only blocks taken by a later adopter of an adopter's lane would count, and none do: 0 stolen), the own count too high by as much; the order and errors right",
  "the adoption moves the giver's entries to s's lane as they are, without marking them as another's, 'once adopted they are s's own'",
  "a block s did not free itself is to be counted stolen when it is handed out to s; unmarked, every adopted block is counted own, so the counts printed say the pool never gave one stream's block to another",
  "own",
  ("""        for (Entry e : from->second.blocks) {
            e.adopted = true;
            to.blocks.push_back(e);
        }
""", """        for (Entry e : from->second.blocks) to.blocks.push_back(e);
"""))
W("stream-ordered-pool", "givers-lane-erased-with-its-event-at-adoption",
  "the record only: an event leaked at every adoption; every printed line right",
  "after moving the giver's blocks the adoption erases the giver's whole lane from the map, lanes_.erase(from), 'the giver has nothing left', instead of clearing its list",
  "the lane's event goes with the map entry and is never destroyed (the destructor walks the map); the giver's next give-back makes a new lane and a new event, so every adoption leaks one event; waits already queued on the old one are unaffected, so nothing printed changes",
  "own",
  ("""        from->second.blocks.clear();
        return take(to);""", """        lanes_.erase(from);   // the giver has nothing left
        return take(to);"""))
W("stream-ordered-pool", "events-of-empty-lanes-left-at-the-end",
  "the record only, and only where some lane is empty when the pool ends: likeliest with --keep (the last round's blocks never come back), and in a default run whenever the last round's busy stream adopts the lane of a stream whose turn is over; every printed line right",
  "the destructor destroys the event of each lane that still holds blocks and skips the empty ones, 'an empty lane has nothing pending'",
  "every lane's event was made by the pool whether or not the lane still holds blocks; a lane emptied by a take or an adoption after its stream's last give-back (with --keep, the lanes the last round takes from) stays empty, and its event leaks",
  "own",
  ("""        for (auto& kv : lanes_) CHECK(cudaEventDestroy(kv.second.event));""",
   """        for (auto& kv : lanes_)
            if (!kv.second.blocks.empty()) CHECK(cudaEventDestroy(kv.second.event));"""))

# ---- stream-pools ----
W("stream-pools", "fit-tested-once-before-the-cas-loop",
  "a race, default output in the overflow round by timing (likely, not sure): 'offsets within capacity: no' and more requests granted than fit (or a fault, pool 3's blocks running past the arena); the work rounds never come near the capacity and stay right",
  "the leader tests old + need <= capacity once, on its first read of the offset, and then loops on atomicCAS until it succeeds, taking each value the CAS returns as the new old without testing the fit again",
  "between the test and a successful CAS other warps move the offset; a leader that lost the race retries from the value it saw, which may no longer leave room for its run, and still stores old + need: the offset passes the capacity and the run is handed out past the slice's end (into the next pool's slice, or past the arena for the last pool); only contended, nearly full pools show it",
  "related: GPUOpen-LibrariesAndSDKs/VulkanMemoryAllocator#89 (a compare-exchange loop working from a stale value)",
  ("""        while (old + need <= p.capacity) {
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + need);
            if (seen == old) {
                start = old;
                break;
            }
            old = seen;
        }""", """        if (old + need <= p.capacity) {
            for (;;) {
                const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + need);
                if (seen == old) {
                    start = old;
                    break;
                }
                old = seen;
            }
        }"""))
W("stream-pools", "counters-allocated-on-the-first-stream-only",
  "the record only: every printed line right",
  "init allocates every pool's counters with cudaMallocAsync on streams[0], 'allocate everything up front on one stream', and clears each on its own pool's stream",
  "the counters of pools 1 to 3 are stream-ordered allocations of streams[0], and their memsets and kernels run on streams 1 to 3, which nothing orders after streams[0]: each is a use of memory on a stream not ordered after its allocation; an allocation from an idle stream's pool is ready at once, so nothing printed changes",
  "related: rapidsai/rmm#2015 (when a stream-ordered allocation may be used, and on which stream)",
  ("""            CHECK(cudaMallocAsync((void**)&counters_[i], sizeof(PoolCounters), streams[i]));""",
   """            CHECK(cudaMallocAsync((void**)&counters_[i], sizeof(PoolCounters), streams[0]));"""))
W("stream-pools", "counters-cleared-by-the-size-of-a-pointer",
  "the record only, most likely: the high-water mark and refusal count are never cleared; memory fresh from the stream-ordered pool most likely holds zeros, so every printed line right (the harness's 0xff trick reaches cudaMalloc'd memory, not this)",
  "init clears each pool's counters with cudaMemsetAsync(counters_[i], 0, sizeof(counters_[i]), streams[i]): the size of the pointer, 8 bytes, not of the PoolCounters it points to",
  "only the offset is cleared; high and failed start with whatever the allocation's memory held, and are then raised by atomicMax and added to: the program reads memory it never wrote, and any leftover value shows up as a wrong mark or refusal count",
  "own",
  ("""            CHECK(cudaMemsetAsync(counters_[i], 0, sizeof(PoolCounters), streams[i]));""",
   """            CHECK(cudaMemsetAsync(counters_[i], 0, sizeof(counters_[i]), streams[i]));"""))
W("stream-pools", "exact-multiples-of-16-given-a-unit-more",
  "default output: warps not given one run in lane order, pool use not as expected (every request of a multiple of 16 bytes takes 16 bytes more), and in the overflow round more than half the requests refused",
  "a request's size in units is bytes / kAlign + 1, 'rounded up to the next unit', instead of (bytes + kAlign - 1) / kAlign",
  "sizes that are already a multiple of 16 (one request in 16 here, and every 512-byte request of the overflow round) are given one unit too many: the blocks no longer sit where main's rounded sizes place them, the pools' offsets count 16 bytes too many per such request, and a slice holds fewer 512-byte blocks than its 1024",
  "own",
  ("""    const unsigned units = (unsigned)((bytes + kAlign - 1) / kAlign);""",
   """    const unsigned units = (unsigned)(bytes / kAlign + 1);   // rounded up to the next unit"""))
