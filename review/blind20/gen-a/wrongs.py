# The wrong files of blind20's first half: for each, its exercise, its
# slug, its header (where it shows, the mistake, why it is wrong, its
# source) and ONE edit of its exercise's correct file (old text, found
# exactly once, and the text that replaces it). make_wrong.py writes them.

W = []


def wrong(ex, slug, shows, mistake, why, source, old, new):
    W.append(dict(ex=ex, slug=slug, shows=shows, mistake=mistake, why=why, source=source, old=old, new=new))


# ---------------------------------------------------------------- block-pool
wrong("block-pool", "class-chosen-by-its-rounded-stride",
      "default output, part 1: the middle class's first request, 1001 bytes, fits the smallest class's 1024-byte stride and is sent to that class, which is all handed out: 'allocate(1001) returned nullptr while 8 blocks of 3000 bytes were free', and the program stops there",
      "allocate walks the classes while the class's stride (its size rounded up to 256) is below the request, 'a block of the class is a stride long, so it holds that much', instead of comparing with the class's size",
      "a class holds requests up to its own size; the padding up to the stride is not the class's, and a request above the size belongs to the next class (main and the course count classes by their sizes)",
      "own",
      "    while (c < (int)bytes_.size() && bytes_[c] < bytes) c++;\n",
      "    while (c < (int)bytes_.size() && stride(bytes_[c]) < bytes) c++;\n")

wrong("block-pool", "allocate-waits-on-a-pending-blocks-event",
      "host waits, and default output, part 3: the request made while every block of the smallest class is held makes allocate() wait on the host for a held kernel (until its gate opens or 200 ms pass) and then hand that block out: 'allocate while every block of 1000 bytes is in use: a block' (nullptr wanted); every allocate that meets a pending block blocks until that block's work is over",
      "allocate asks a pending block's event with cudaEventSynchronize, 'wait until the block is free, then hand it out', where cudaEventQuery was meant",
      "allocate() must never wait for the GPU: a block whose work is not over is passed over, and nullptr comes back when no block of the class is ready; cudaEventSynchronize blocks the host until the event completes",
      "own",
      "cudaEventQuery(b.ev) != cudaSuccess",
      "cudaEventSynchronize(b.ev) != cudaSuccess")

wrong("block-pool", "refused-give-back-records-its-event-first",
      "default output and the record, part 3: the second give-back of a block whose kernel still runs, asked on the idle fourth stream, is refused, but it has already recorded the block's event on that stream, which completes at once; the next allocate hands that block out while its kernel runs: 'allocate while every block of 1000 bytes is in use: a block', and a request finds its words overwritten ('request N ... found K of its words overwritten')",
      "deallocate makes and records the block's event before it checks that the block is handed out, 'the event always marks the latest give-back', so a give-back it then refuses has already moved the event to its own stream",
      "a refused deallocate must change nothing: recording the block's event again on another stream replaces the record that tracked the block's real work, and the block looks done as soon as that stream is",
      "own",
      """    if (b.state != State::Out) return false;
    if (b.ev == nullptr && cudaEventCreateWithFlags(&b.ev, cudaEventDisableTiming) != cudaSuccess) {
        b.ev = nullptr;
        return false;
    }
    if (cudaEventRecord(b.ev, stream) != cudaSuccess) return false;
""",
      """    if (b.ev == nullptr && cudaEventCreateWithFlags(&b.ev, cudaEventDisableTiming) != cudaSuccess) {
        b.ev = nullptr;
        return false;
    }
    if (cudaEventRecord(b.ev, stream) != cudaSuccess) return false;
    if (b.state != State::Out) return false;
""")

wrong("block-pool", "arena-sized-from-the-unrounded-class-sizes",
      "the record: with the default classes the one cudaMalloc is 112000 bytes while the blocks are laid out over 114688; the largest class's last block (from byte 104448) ends 2448 bytes past the allocation, and every request served from it (part 1's, and part 4's of that class) clears and writes past the end: out-of-bounds writes a memory checker reports; the output is likely right; with classes that are multiples of 256 all right",
      "init sizes the cudaMalloc as the sum of the class sizes times the blocks, 'the pool holds blocks of these sizes', while it lays the blocks out a stride apart",
      "each block takes its class's stride (the size rounded up to 256), so the allocation must cover the strides (only the very last block's padding may be left out)",
      "own",
      "    for (size_t b : classBytes) total += stride(b) * blocks;\n",
      "    for (size_t b : classBytes) total += b * blocks;\n")

# ------------------------------------------------------------ async-pipeline
wrong("async-pipeline", "checksum-launched-without-a-stream",
      "a race, the record, and default output by timing: every checksum runs on the legacy default stream, which main's non-blocking streams neither wait for nor hold back: it may read the values before the copy in or scale has written them, or after their free, and the copy back of the sums may run before it has written them: 'N of 12 checksums right' with N < 12 on most runs (the results right); unordered uses of the values and the sums blocks every iteration",
      "submit launches checksum without its stream argument, <<<BLOCKS, THREADS>>>, 'the kernel comes after the scale queued before it'",
      "a launch without a stream goes to the legacy default stream; main's streams are non-blocking, so nothing orders that kernel with the iteration's copy in, scale, copies back or frees, all on the iteration's stream",
      "openvdb/fvdb-core#587 (kernel launches that left the stream out of <<<>>> and ran on the default stream while callers used streams of their own)",
      "    checksum<<<BLOCKS, THREADS, 0, s>>>(values, n, partial);\n",
      "    checksum<<<BLOCKS, THREADS>>>(values, n, partial);\n")

wrong("async-pipeline", "join-events-recorded-on-the-first-stream",
      "default output by timing, and the record (the host reads memory that copies may still write): every join event is recorded on the first stream, so drain's one wait covers that stream's iterations only; main reads the other streams' results while their copies may still run: the last iteration (on stream 3), checked first, is often not right: 'N of 12 results right' with N < 12 (and checksums); with STREAMS 1 right",
      "drain records each join event on streams_[0], the stream that then waits, 'the first stream collects the events', instead of on stream i",
      "an event marks the work queued before it on the stream it is recorded on; recorded on the first stream, every wait is a wait for the first stream itself, and no other stream's work is joined before the host's wait",
      "own",
      "        CHECK(cudaEventRecord(joined_[i], streams_[i]));\n",
      "        CHECK(cudaEventRecord(joined_[i], streams_[0]));\n")

wrong("async-pipeline", "iterations-spread-over-four-streams-always",
      "other arguments only (STREAMS 1 to 3, e.g. async_pipeline 12 2): the iterations whose index modulo 4 is count or more go to the null entries of the stream array, the legacy default stream, which drain never joins: main may read them before they are done ('N of 12 results right' by timing) and they run one after the other; with STREAMS 5 or more only four streams are used (time only); the default 4 streams right",
      "submit picks the stream with it % 4, the default number of streams written as a constant, instead of it % count",
      "the pipeline has count streams; the array's entries past count are null, and a null stream is the legacy default stream, outside the pipeline's streams and its join",
      "own",
      "    cudaStream_t s = streams_[it % count_];\n",
      "    cudaStream_t s = streams_[it % 4];\n")

wrong("async-pipeline", "sums-copy-counted-in-elements",
      "default output: each iteration's copy of the partial sums moves 64 bytes, the first 8 of its 64 long longs; the others keep main's 0xff bytes (-1 each): '12 of 12 results right, 0 of 12 checksums right'",
      "the copy back of the partial sums is given BLOCKS as its size, 'BLOCKS partial sums', where cudaMemcpyAsync counts bytes",
      "a copy's size is in bytes: BLOCKS long longs are BLOCKS * sizeof(long long) bytes, as the block was allocated",
      "bokesyo/CSC4005_2022Fall_Demo#31 (cudaMalloc and cudaMemcpy given a count of elements where the size in bytes is wanted)",
      "partial, sumBytes, cudaMemcpyDeviceToHost, s));",
      "partial, BLOCKS, cudaMemcpyDeviceToHost, s));")

# ---------------------------------------------------------------- pool-reuse
wrong("pool-reuse", "phase-threshold-written-to-the-devices-current-pool",
      "default output: the program's own pool keeps its threshold of 0 and gives everything back at every round's synchronisation: 'wide: 0 of 6 rounds found their 128 MiB already reserved' (5 wanted), 'narrow: 0 of 6 rounds ...' (6 wanted), 'threshold 0 MiB' in both reports; and the device's current pool (the default pool, which the program does not own) is left with a threshold of 32 MiB",
      "enter_phase writes the phase's release threshold to the device's current pool, got with cudaDeviceGetMemPool, 'the pool the device allocates from', instead of to the pool the rounds use",
      "attributes belong to each pool: the rounds allocate from the pool make_pool created, whose threshold stays 0; the default pool is shared by everything on the device and is not the program's to change",
      "rapidsai/rmm#2512 (a release threshold set on the device's shared default pool is seen by every user of that pool)",
      "    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));\n",
      """    cudaMemPool_t current = nullptr;
    CHECK(cudaDeviceGetMemPool(&current, 0));
    CHECK(put(current, cudaMemPoolAttrReleaseThreshold, peak));
""")

wrong("pool-reuse", "finish-lowers-the-threshold-without-a-trim",
      "default output: 'after the trim: reserved 32 MiB' (0 wanted): nothing synchronises after finish, so the lowered threshold has not acted when main asks; the phases right",
      "finish only writes a release threshold of 0, 'a threshold of 0 gives everything back', and leaves out the trim",
      "the release threshold acts at the next synchronisation (of a stream, an event or the device); only cudaMemPoolTrimTo gives back at once what the pool holds",
      "cupy/cupy#3777 (memory a pool keeps is given back at once only by cudaMemPoolTrimTo(0))",
      """    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, 0));
    CHECK(cudaMemPoolTrimTo(pool, 0));
""",
      """    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, 0));
""")

wrong("pool-reuse", "peak-computed-from-the-request-sizes",
      "other arguments only: with the default 32 MiB buffers the pool reserves exactly what they ask; with a MIB the pool rounds up (e.g. pool_reuse 6 4 1) the threshold is below what a round reserves, so the pool gives its memory back at every round's synchronisation: 'measured narrow: one round reserves 1 MiB' (2 wanted) and 'narrow: 0 of 6 rounds found their 1 MiB already reserved' (6 wanted)",
      "measure_peak still runs the round but takes the peak as buffers * bytes, 'what a round asks for is what it reserves', instead of the pool's reserved high-water mark",
      "the pool reserves in units of its own (2 MiB at least here), so a round may reserve more than it asks; a threshold must cover what the pool reserved, which only its reserved mark says",
      "own",
      "    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);\n",
      "    *peak = (uint64_t)ph.buffers * ph.bytes;\n")

wrong("pool-reuse", "pool-props-without-an-allocation-type",
      "default output: cudaMemPoolCreate refuses the properties ('invalid argument'), make_pool fails and main stops at its CHECK before any round: 'pool_reuse.cu:NN: invalid argument', exit status 1",
      "make_pool fills the zeroed props with the handle types and the location but leaves allocType at 0, 'the zeroed struct is an ordinary pool'",
      "0 is cudaMemAllocationTypeInvalid: a pool's properties must say cudaMemAllocationTypePinned",
      "own",
      "    props.allocType = cudaMemAllocationTypePinned;\n",
      "")

# -------------------------------------------------------------- cross-stream
wrong("cross-stream", "squared-recorded-before-square",
      "a race, the record, and default output by timing: the squared events mark only the wait and the allocation, so reduce_ frees the values while the squares may still read them and sums squares not yet written: an unordered use and an unordered free every chunk, and 'N of 8 chunks right' with N < 8 on most runs (square spins about 0.1 ms before it writes)",
      "stage_work records the half's squared event before it launches square, 'the event announces the squares', right after their allocation",
      "a record marks the work queued before it on its stream; recorded before square, a wait on it does not include square",
      "own",
      """    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * n, ch.squares[half], n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(ev(ch, SQUARED0 + half), s));
""",
      """    CHECK(cudaEventRecord(ev(ch, SQUARED0 + half), s));
    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * n, ch.squares[half], n);
    CHECK(cudaGetLastError());
""")

wrong("cross-stream", "values-freed-on-reduce-before-its-waits",
      "a race and the record: the free of the values is ordered only after reduce_'s earlier work, not after this chunk's generate or either square (nor after the values' allocation on load_): an unordered free every chunk; the pool may hand the block to a later chunk's values while the squares still read it: half sums wrong by timing",
      "stage_reduce queues cudaFreeAsync of the values first and its two waits after it, 'the free is only a note for later'",
      "a stream-ordered free takes effect at the point of its stream's order where it is queued; queued before the waits, nothing orders it after generate on load_ or the two squares on the work streams",
      "own",
      """    CHECK(cudaStreamWaitEvent(reduce_, ev(ch, SQUARED0), 0));
    CHECK(cudaStreamWaitEvent(reduce_, ev(ch, SQUARED1), 0));
    CHECK(cudaFreeAsync(ch.values, reduce_));
""",
      """    CHECK(cudaFreeAsync(ch.values, reduce_));
    CHECK(cudaStreamWaitEvent(reduce_, ev(ch, SQUARED0), 0));
    CHECK(cudaStreamWaitEvent(reduce_, ev(ch, SQUARED1), 0));
""")

wrong("cross-stream", "copy-brings-back-one-half",
      "default output: only half 0's partial sums come back; half 1's stay the zeros main wrote: every chunk 'sums of squares X + 0 (expected X + Y)', '0 of 8 chunks right'",
      "stage_copy copies sizeof(float) * BLOCKS bytes, 'the BLOCKS partial sums', forgetting that both halves' sums are in the buffer",
      "the buffer holds HALVES * BLOCKS floats, half 0's first: the copy must bring both halves back",
      "own",
      "ch.partials, sizeof(float) * HALVES * BLOCKS, cudaMemcpyDeviceToHost, copy_));",
      "ch.partials, sizeof(float) * BLOCKS, cudaMemcpyDeviceToHost, copy_));")

wrong("cross-stream", "reduce-waits-on-half-0-twice",
      "a race and the record: reduce_ never waits for half 1's square: it frees the values while work_[1] may still read them and sums half 1's squares possibly before they are written: an unordered free and use (reduce_ against work_[1]) every chunk, half 1's sums wrong by timing",
      "the second wait in stage_reduce, copied from the first, still names SQUARED0",
      "each half squares on its own stream; reduce_ must wait for both squared events before it reads either half's squares or frees the values both halves read",
      "own",
      "    CHECK(cudaStreamWaitEvent(reduce_, ev(ch, SQUARED1), 0));\n",
      "    CHECK(cudaStreamWaitEvent(reduce_, ev(ch, SQUARED0), 0));\n")

# --------------------------------------------------------------- strict-pool
wrong("strict-pool", "policies-turned-off-on-the-devices-default-pool",
      "default output: 'pool: opportunistic 1, internal dependencies 1' (0 and 0 wanted): the program's pool keeps the driver's defaults, and the device's default pool, which the program does not own, loses its crossing policies; the rounds, reuse and sums right (the hands order B after A anyway)",
      "the constructor writes the three reuse policies on the device's default pool, got with cudaDeviceGetDefaultMemPool, 'the reuse policies are the device's', instead of on the pool it has just created",
      "reuse policies are attributes of each pool; the pool get() allocates from keeps opportunistic reuse and internal dependencies on, and the default pool is not the program's to change",
      "own",
      """    ok(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    ok(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));
    ok(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, &on));
""",
      """    cudaMemPool_t policies = nullptr;
    ok(cudaDeviceGetDefaultMemPool(&policies, device));
    ok(cudaMemPoolSetAttribute(policies, cudaMemPoolReuseAllowOpportunistic, &off));
    ok(cudaMemPoolSetAttribute(policies, cudaMemPoolReuseAllowInternalDependencies, &off));
    ok(cudaMemPoolSetAttribute(policies, cudaMemPoolReuseFollowEventDependencies, &on));
""")

wrong("strict-pool", "put-gives-back-with-cudaFree",
      "the record: cudaFree of a stream-ordered allocation waits for nothing (CUDA 12 and 13) and frees the block at once, while the fill queued before the put may still be writing it: a free not ordered after the block's last use at every put (A's and B's); the output likely right ('6 of 6 rounds: B reused the block A freed', sums right), since each hand still orders the next user after the previous one's work; on a driver whose cudaFree synchronises the device, a host wait in every put instead",
      "put gives the block back with cudaFree(p), 'the block goes back to the pool it came from', without the stream",
      "put must give the block back in s's order, after the work queued on s; cudaFree of memory from cudaMallocFromPoolAsync frees it at once and leaves it to the caller to make sure nothing still uses it",
      "kokkos/kokkos#9307 (cudaFree of a stream-ordered allocation performs no implicit synchronisation: the caller must make sure every access is over)",
      "    ok(cudaFreeAsync(p, s));\n",
      "    ok(cudaFree(p));\n")

wrong("strict-pool", "new-event-never-stored-in-the-map",
      "the record only: the pair is never found in the map, so every hand makes a new event, and none of them is ever destroyed: 12 events leaked on the default run (two hands a round); the output right",
      "hand makes the pair's event when the map has none but never puts it in the map, the emplace left out",
      "an event made must be destroyed; the map is what the destructor walks and what lets the pair's next hand record the same event again",
      "own",
      "        events_.emplace(key, ev);\n",
      "")

wrong("strict-pool", "reserved-high-read-from-the-used-mark",
      "other arguments only: with 32 MiB blocks the pool reserves exactly what it hands out and both marks say 32 MiB; with a MIB the pool rounds up (e.g. strict_pool 6 1) the report says 'pool reserved at most 1 MiB for blocks of 1 MiB' where the pool reserved 2",
      "reserved_high asks cudaMemPoolAttrUsedMemHigh, 'the most the pool handed out is the most it took'",
      "the used mark counts memory handed out to allocations; what the pool reserved from the device, in its own units, is the reserved mark",
      "own",
      "cudaMemPoolAttrReservedMemHigh, &v",
      "cudaMemPoolAttrUsedMemHigh, &v")

# -------------------------------------------------------------- vmm-growable
wrong("vmm-growable", "round-truncates-to-the-unit-below",
      "default output: grow(1 MiB) rounds to 0 bytes and maps nothing: 'grow(1 MiB): 0 bytes mapped'; the fill on the caller's stream then writes unmapped addresses (an illegal address), and the next grow fails at its context synchronisation: 'grow to 104857600 bytes failed'",
      "round divides by the granularity and multiplies back without adding granularity - 1 first, so every size is rounded down",
      "the driver takes whole units and the buffer needs at least the bytes asked for; rounding down leaves the last part of a request, or all of a small one, without memory",
      "own",
      "        return (n + granularity_ - 1) / granularity_ * granularity_;\n",
      "        return n / granularity_ * granularity_;\n")

wrong("vmm-growable", "access-opened-before-the-map",
      "default output: the first grow fails: cuMemSetAccess refuses addresses with no memory mapped behind them: 'grow to 1048576 bytes failed'",
      "grow opens the new chunk's addresses for reads and writes before it maps the chunk there, 'set up the addresses, then put the memory in'",
      "access is set on mapped memory: a cuMemSetAccess over addresses not yet mapped is refused, so the map comes first",
      "ROCm/rocm-systems#10778 (access set on a reserved range before it was mapped, which the runtime rejects)",
      """        CU(cuMemMap(at, piece, 0, h, 0));
        mapped_ = want;
        CU(cuMemSetAccess(at, piece, &access_, 1));
""",
      """        CU(cuMemSetAccess(at, piece, &access_, 1));
        CU(cuMemMap(at, piece, 0, h, 0));
        mapped_ = want;
""")

wrong("vmm-growable", "release-never-releases-the-handles",
      "the record only: every chunk's physical memory stays allocated after release (100 MiB on the default run), since no handle from cuMemCreate is ever released; 'release: ok' and 'every reservation given back: yes', the addresses being unmapped and freed",
      "release unmaps everything and frees the range but never calls cuMemRelease on the chunks' handles, 'unmapping gives the memory back'",
      "the driver frees physical memory only once it is unmapped everywhere AND its handle is released",
      "NVIDIA/cuda-python#2882 (a VMM resource that never released the handles cuMemCreate returned kept every allocation's memory until the process ended)",
      """        for (const Chunk& c : chunks_)
            if (cuMemRelease(c.handle) != CUDA_SUCCESS) ok = false;
""",
      "")

wrong("vmm-growable", "move-maps-every-old-chunk-at-the-new-start",
      "other arguments only: a move of a buffer of two chunks or more, e.g. growable 100 64 300: the second old chunk is mapped over the first at the new range's start, which the driver refuses: 'grow to 314572800 bytes failed'; the default run moves one chunk only and is right",
      "move maps each old chunk at the new range's start, the offset left out of the address, while it still counts the offset for the access call",
      "each chunk must be mapped at its own offset in the new range, as it lay in the old one",
      "own",
      "            r = cuMemMap(nb + off, c.bytes, 0, c.handle, 0);\n",
      "            r = cuMemMap(nb, c.bytes, 0, c.handle, 0);\n")

# ------------------------------------------------------------- pool-resource
wrong("pool-resource", "taker-waits-on-its-own-event",
      "a race and the record: a stream taking another stream's free block waits for its own event instead: in phase 1's first round stream 1 takes the rest of stream 0's new chunk behind a wait for nothing (its event not yet recorded), its fill racing the upstream's clear on stream 0; in phase 2 stream 0 takes stream 1's block while stream 1's last sum may still read it; unordered uses every run, sums wrong by timing",
      "allocate makes s wait on event_of(s), 'wait until the asker's own work is done', instead of on the event of the stream in whose order the block is free",
      "the block is free only in the freeing stream's order; only that stream's event, recorded at its free, orders the taker after the work on the block",
      "own",
      "            CHECK(cudaStreamWaitEvent(s, event_of(chunks_[bc].segs[bi].tag), 0));\n",
      "            CHECK(cudaStreamWaitEvent(s, event_of(s), 0));\n")

wrong("pool-resource", "block-cut-at-the-unrounded-size",
      "default output: the blocks of 4 MiB - 100 bytes are cut at that size, so the rest after them starts 100 bytes short of a 256-byte boundary; in phase 2 stream 0's second and third 4 MiB blocks are cut from that rest: by my trace 'blocks: N handed out, 2 misaligned, ...' (0 wanted), and phase 2's chunk count one more",
      "allocate cuts the block at the size asked for, the rounding up to 256 left out",
      "every block must start on a 256-byte boundary; a block whose size is not a multiple of 256 leaves the segment after it misaligned",
      "own",
      "        const size_t n = round_up(bytes == 0 ? 1 : bytes);\n",
      "        const size_t n = bytes == 0 ? 1 : bytes;\n")

wrong("pool-resource", "freed-block-keeps-the-takers-tag",
      "other arguments only (a third stream: phase 8) and a race: a block taken on one stream and given back on another stays tagged with the stream that took it; in phase 8 the 4 MiB block B took and A used and freed stays B's (and, tagged B, does not join A's free neighbour), so B takes it back as its own without waiting for A: B's fill may run while A's kernels still use the block: an unordered use, sums by timing; with two streams the only such blocks (phase 3's, freed on stream 0 after it waited for stream 1) are never used again, so all right",
      "deallocate marks the block free and records the freeing stream's event but leaves the block's tag as allocate set it, the stream that took it, 'a block belongs to the stream that allocated it'",
      "a block is free in the order of the stream deallocate names, not of the stream that allocated it; a taker on the allocating stream must still wait for the freeing stream",
      "own",
      "            it->tag = s;\n",
      "")

wrong("pool-resource", "new-chunk-sized-to-the-request-alone",
      "default output: each new chunk is as large as the request that makes it (4 MiB in phase 1), so the pool grows more often and separate chunks never join: by my trace '1. ... 2 chunk(s) taken' (1 wanted), '2. ... 5', '3. ... 5', '4. ... 6', and 'upstream: 6 chunks taken, 6 given back whole' (3 wanted)",
      "allocate asks its upstream for a chunk of the request's size, 'a chunk of what is needed', instead of max(chunk, request)",
      "the pool takes chunks of chunk bytes (the request's own size only when larger), so that later requests are cut from the rest without the upstream",
      "own",
      "            const size_t size = std::max(chunk_, n);\n",
      "            const size_t size = n;\n")
