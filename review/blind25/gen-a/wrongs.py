"""wrongs.py: each wrong file as (exercise, slug, where it shows, mistake, why it is wrong,
source, [(old text of the correct body, new text)]). make_wrong.py applies the edits."""
W = []
def wrong(ex, slug, where, mistake, why, source, *edits):
    W.append((ex, slug, where, mistake, why, source, list(edits)))

# ---------------------------------------------------------------- block-pool
wrong('block-pool', 'harvest-gives-up-at-the-first-busy-stream',
 'default output',
 "harvest returns as soon as one stream's oldest block is not done ('the pool has nothing ready yet'), instead of going on to the next stream's queue",
 "the queues of different streams are not ordered with each other: a busy block at the front of one stream's queue says nothing about the blocks given back on other streams; the streams' queues are kept in the order the streams were first seen (s[0] to s[3], from part 1), so in part 3b the blocks given back on the idle fourth stream sit behind s[0]'s busy queue and are never harvested while the held kernels run: 'allocate with 4 of 8 blocks of 1000 bytes done, the others in use: 0 handed out' (and again in 3c), where the done blocks must come out; in part 4 a block whose stream comes after a busy one waits until that one is done (take() still gets one, later)",
 'related: pytorch/pytorch#71745 (per-stream queues of given-back blocks, and blocks held up behind a busy one)',
 ("            if (cudaEventQuery(event_[b]) != cudaSuccess) break;", "            if (cudaEventQuery(event_[b]) != cudaSuccess) return;"))
wrong('block-pool', 'whole-stream-queue-released-when-its-oldest-is-done',
 'a race, and the default output by timing',
 "harvest, finding a stream's oldest given-back block done, moves that stream's WHOLE queue to the idle stacks, 'the stream has caught up with its give-backs'",
 "an event answering done says only that the work queued before ITS record is over; the blocks given back later on the same stream have their own, later records, and their kernels may still run: in part 4 each stream's queue holds blocks given back right after their 0.2 ms kernels were queued, so when its oldest is done the newer ones are handed out while their kernels still fill and read them: another request's kernel overwrites the words ('request N ... found K of its words overwritten'), and the record shows blocks handed out while a stream's work on them is not done; the parts whose queues hold one busy block at a time (3, 3b, 3c, 3e) stay right",
 'related: NVIDIA/cuCascade#189 (a block put back on a free list without the ordering of the work still using it, then reused during that work)',
 ("""        while (!q.empty()) {
            const size_t b = q.front();
            if (cudaEventQuery(event_[b]) != cudaSuccess) break;
            q.pop_front();
            state_[b] = kIdle;
            idle_[b / blocks_].push_back(b);
        }""", """        if (!q.empty() && cudaEventQuery(event_[q.front()]) == cudaSuccess) {
            for (const size_t b : q) {
                state_[b] = kIdle;
                idle_[b / blocks_].push_back(b);
            }
            q.clear();
        }"""))
wrong('block-pool', 'event-made-again-at-every-give-back',
 'the record only',
 "deallocate makes a new event for the block at EVERY give-back (the test for an event already made left out), 'a fresh give-back gets a fresh event', overwriting the handle of the block's earlier event without destroying it",
 "every give-back after a block's first leaks an event: the old handle is lost, and destroy() destroys only the latest event of each block; the default run gives blocks back some 250 times over 24 blocks, so over 200 events are made and never destroyed; every printed line is right, since each give-back's event is recorded and asked as before",
 'related: tromp/cuckoo#69 (events created over and over and never destroyed)',
 ("    if (event_[b] == nullptr && cudaEventCreateWithFlags(&event_[b], cudaEventDisableTiming) != cudaSuccess) {",
  "    if (cudaEventCreateWithFlags(&event_[b], cudaEventDisableTiming) != cudaSuccess) {"))
wrong('block-pool', 'harvested-block-filed-under-the-asked-class',
 'default output',
 "harvest puts each block it finds done on the idle stack of the class allocate was asked for (harvest(c)), 'the harvest is for this request', instead of on the block's own class's stack",
 "harvest takes done blocks of EVERY class off the streams' queues: a block of another class is then handed out for this class, and the address arithmetic no longer matches the class: a 1000-byte request gets a 3072- or 10240-byte block (its own class runs short), and a 3000- or 10000-byte request may get a 1024-byte block, whose kernel then writes past it into the next blocks ('words overwritten'); part 3's first takes already pull part 2's given-back blocks of all classes into the smallest class, so 3e's take of the next class finds nothing of its own ('no block of 3000 bytes came back within 2 s') or a block too small",
 'own',
 ("    void harvest();", "    void harvest(size_t into);"),
 ("void BlockPool::harvest() {", "void BlockPool::harvest(size_t into) {"),
 ("            idle_[b / blocks_].push_back(b);", "            idle_[into].push_back(b);"),
 ("    if (idle_[c].empty()) harvest();", "    if (idle_[c].empty()) harvest(c);"))

# ------------------------------------------------------------ async-pipeline
wrong('async-pipeline', 'iteration-event-recorded-before-the-sums-copy',
 'a race the default run usually wins, and the record',
 "submit records the iteration's event right after the copy back of the values, 'the iteration's data is home', and queues the copy of the partial sums and the two frees after it",
 "drain waits for exactly what the events cover: the copy of each iteration's 512 bytes of partial sums (and its frees) comes after the record, so drain may return while the last iterations' sums are still on their way to the host; main reads the sums after it reads the 4 MiB of values, so the small copy has almost always landed and the checksums come out right, but nothing orders the host's read after the copy: the record shows the host reading sums whose copy it never waited for (and a slow copy gives '11 of 12 checksums right')",
 'own',
 ("""    CHECK(cudaMemcpyAsync(out_ + off, values, bytes, cudaMemcpyDeviceToHost, s));
""", """    CHECK(cudaMemcpyAsync(out_ + off, values, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaEventRecord(done_[it], s));
"""),
 ("""    CHECK(cudaFreeAsync(partial, s));
    CHECK(cudaEventRecord(done_[it], s));
""", """    CHECK(cudaFreeAsync(partial, s));
"""))
wrong('async-pipeline', 'drain-waits-for-the-last-iterations-event-only',
 'a race the default run usually wins, and the record',
 "drain waits only for the event of the last iteration submitted (done_[iterations_ - 1]), 'the last iteration queued is the last to finish'",
 "one event covers the work of one stream only: the other streams' iterations are not ordered before it and may still run when drain returns; on the default run (12 on 4 streams, three each) the last iteration's stream usually does end last, and main checks the last iteration first and spends milliseconds on it, so the results are mostly right; but nothing makes them so: when the iterations end out of order (a stream held up by the copy engines' order, or by other work on the GPU) results are read before they are copied back ('11 of 12 results right' or fewer), and the record shows host reads of iterations the host never waited for",
 'own',
 ("    for (int i = 0; i < iterations_; i++) CHECK(cudaEventSynchronize(done_[i]));",
  "    if (iterations_ > 0) CHECK(cudaEventSynchronize(done_[iterations_ - 1]));"))
wrong('async-pipeline', 'each-iteration-made-to-wait-for-the-one-before',
 'overlap only (the record): results right',
 "submit makes each iteration's stream wait for the previous iteration's event first (cudaStreamWaitEvent(s, done_[it - 1])), 'so that the iterations finish in order and drain can trust the events'",
 "the wait is on the device, not the host, so nothing is slow on the host's side, but it chains every iteration after the whole of the one before: the streams never run side by side (iteration 1's copy in waits for iteration 0's copies back), which is the whole point of the exercise; every result and checksum is right and the host waits only in drain: only a look at the overlap of the streams (or the run's time, about four times longer) shows it",
 'own',
 ("""    float* values = nullptr;
    long long* partial = nullptr;
""", """    float* values = nullptr;
    long long* partial = nullptr;
    if (it > 0) CHECK(cudaStreamWaitEvent(s, done_[it - 1], 0));
"""))
wrong('async-pipeline', 'values-block-freed-before-its-copy-back',
 'a race, by the pool\'s choice, and the record',
 "submit frees the values' block right after checksum is queued, 'the kernels are its last users, a copy is only a transfer', and queues the two copies back after the free",
 "a copy reads the block like a kernel does: the free comes before the copy back in the stream's order, so the block is free again while the copy still has to read it; all twelve iterations are queued before any free runs, so the pool can hand the block to another stream's allocation only with a dependency on that free (internal dependencies are on in the default pool), and then that iteration's copy in may overwrite the values before this iteration's copy back reads them: wrong results by timing and by the pool's choice (usually it reuses on the same stream, where the copy comes first, and the run is right); the record shows a copy from a block after its free on every iteration",
 'related: NVIDIA/cudf#22321 (an asynchronous copy still reading a buffer that was freed after it was queued)',
 ("""    checksum<<<BLOCKS, THREADS, 0, s>>>(values, n, partial);
""", """    checksum<<<BLOCKS, THREADS, 0, s>>>(values, n, partial);
    CHECK(cudaFreeAsync(values, s));
"""),
 ("""    CHECK(cudaFreeAsync(values, s));
    CHECK(cudaFreeAsync(partial, s));""", """    CHECK(cudaFreeAsync(partial, s));"""))

# ---------------------------------------------------------------- pool-reuse
wrong('pool-reuse', 'threshold-written-from-an-int-local',
 'by chance on the default run; other arguments (a peak of 2 GiB or more)',
 "settle writes the release threshold from an int local (int limit = (int)keep; cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &limit)), 'a few hundred MiB fit in an int', while the trim and the marks still take keep",
 "cudaMemPoolAttrReleaseThreshold is a 64-bit attribute: the driver reads eight bytes from &limit, four of them whatever lies next to the int on the stack; when those are not 0 the threshold is some huge number (the reports print a threshold of millions of MiB, and the pool keeps everything across synchronisations); when they are 0 the default run is right; and a peak of 2 GiB or more does not fit the int at all (pool_reuse 6 4 1024: 4 GiB leaves 0 in the int, so the threshold is 0, or garbage from the stack: with 0 the wide phase keeps nothing across its rounds: 'wide: 0 of 6 rounds found their 4096 MiB already reserved', 5 of 6 wanted)",
 'own',
 ("    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, keep));\n    CHECK(cudaMemPoolTrimTo(pool, keep));",
  "    int limit = (int)keep;\n    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &limit));\n    CHECK(cudaMemPoolTrimTo(pool, keep));"))
wrong('pool-reuse', 'held-subtracts-the-used-high-mark',
 'default output',
 "held takes what is in use from cudaMemPoolAttrUsedMemHigh, the attribute next to the right one, 'the memory the rounds use', instead of cudaMemPoolAttrUsedMemCurrent",
 "between rounds nothing is in use, but the used high-water mark still holds the last round's peak: after the first wide round the pool keeps 128 MiB and the mark says 128 MiB, so the spare is 0 and no later round counts as held: 'wide: 0 of 6 rounds found their 128 MiB already reserved' (5 of 6 wanted) and 'narrow: 1 of 6' (6 of 6 wanted: only its first round, before the restarted mark rises); the pool itself behaves right",
 'own',
 ("    const uint64_t used = attr(pool, cudaMemPoolAttrUsedMemCurrent);", "    const uint64_t used = attr(pool, cudaMemPoolAttrUsedMemHigh);"))
wrong('pool-reuse', 'held-keeps-the-spare-in-an-unsigned',
 'other arguments only (4 GiB or more spare)',
 "held keeps the spare bytes (reserved minus used) in an unsigned, 'what is left over is small', before comparing them with the 64-bit need",
 "the spare loses its high bits: with the default 128 MiB it is exact and the counts are right; when the pool holds 4 GiB or more (pool_reuse 6 4 1024, or 6 8 512: 4 GiB exactly, which becomes 0; 6 8 1024: 8 GiB) held says no for every wide round: 'wide: 0 of 6 rounds found their 4096 MiB already reserved' where 5 of 6 did; the pool itself behaves right",
 'own',
 ("    const uint64_t spare = reserved >= used ? reserved - used : 0;", "    const unsigned spare = reserved >= used ? reserved - used : 0;"))
wrong('pool-reuse', 'trim-given-the-bytes-to-give-back',
 'default output',
 "settle calls cudaMemPoolTrimTo with what the pool holds beyond keep (reserved now minus keep), reading its argument as 'the bytes to give back'",
 "cudaMemPoolTrimTo's size is the least the pool KEEPS: entering the narrow phase the pool holds 128 MiB and is asked to keep 96, so it still holds 96 MiB (or all 128) ('entering narrow: reserved 96 MiB', 32 wanted) and the narrow phase's restarted reserved mark starts there ('reserved high 96 MiB'); entering the wide phase the subtraction wraps (0 - 128 MiB), which keeps everything and does no harm; finish asks to keep the 32 MiB the pool holds ('after the trim: reserved 32 MiB', 0 wanted)",
 'related: pytorch/executorch#22312 (a pool retention setting whose meaning was read backwards)',
 ("    CHECK(cudaMemPoolTrimTo(pool, keep));", "    CHECK(cudaMemPoolTrimTo(pool, attr(pool, cudaMemPoolAttrReservedMemCurrent) - keep));"))

# -------------------------------------------------------------- cross-stream
wrong('cross-stream', 'values-freed-on-reduce-between-its-two-waits',
 'a race, and the record',
 "stage_reduce frees the values right after its wait for half 0's squared event and waits for half 1's after the free, 'the first reader's wait already puts the values in reduce_'s order'",
 "only half 0's read of the values is in reduce_'s order when the free is queued: half 1's square, on work_[1], may still be reading them; the next chunk's values come from the same pool on load_ (the pool may hand it the block with a dependency on this free only, since internal dependencies are on), so its generate may overwrite the block while half 1 still squares it: half 1's sums come out wrong by timing (square spins 0.1 ms before it reads, so usually in time), and the record shows a free on reduce_ not ordered after the read on work_[1], every chunk",
 'own',
 ("""    CHECK(cudaStreamWaitEvent(reduce_, squared_[0], 0));
    CHECK(cudaStreamWaitEvent(reduce_, squared_[1], 0));
    // Both reads of the values are in reduce_'s order now: they can go
    // before the sums even start.
    CHECK(cudaFreeAsync(ch.values, reduce_));
""", """    CHECK(cudaStreamWaitEvent(reduce_, squared_[0], 0));
    // Both reads of the values are in reduce_'s order now: they can go
    // before the sums even start.
    CHECK(cudaFreeAsync(ch.values, reduce_));
    CHECK(cudaStreamWaitEvent(reduce_, squared_[1], 0));
"""))
wrong('cross-stream', 'squares-wait-for-the-previous-chunks-reduce',
 'overlap only (the record): every sum right',
 "stage_work makes its work stream wait for the reduced event before it allocates the half's squares, 'the last chunk's squares must be summed before new ones are written'",
 "each chunk's squares are a buffer of their own, so nothing needs this wait; at stage_work the reduced event holds the previous chunk's record, so work_[0] and work_[1] cannot square chunk c before reduce_ has summed chunk c - 1: the squaring of one chunk never runs beside the reduction of the one before, the pipeline's stages are held in step and the run takes longer; every sum is right, no host waits, and load_ still never waits",
 'own',
 ("""    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
""", """    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
    CHECK(cudaStreamWaitEvent(s, reduced_, 0));
"""))
wrong('cross-stream', 'sums-copied-back-on-the-reduce-stream',
 'the record only: every sum right',
 "stage_copy waits on copy_ for the reduced event but queues the copy of the partial sums on reduce_ ('the sums are reduce_'s, and reduce_ is done with them'), and frees the partial sums and the squares on copy_ as before",
 "the frees on copy_ are then ordered after reduce_'s sums (through the wait) but not after the copy, which runs on reduce_: the partial sums' block is free in copy_'s order while the copy may still read it; in this program the next block of that size is taken on reduce_ itself, after the copy in reduce_'s order, so the sums come back right on every run, but the record shows a use of the partial sums not ordered before their free, every chunk",
 'related: NVIDIA/cuCascade#189 (a buffer released on one stream while a transfer on another stream still reads it)',
 ("    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));",
  "    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, reduce_));"))
wrong('cross-stream', 'loaded-waited-for-by-half-0-only',
 'a race the default run mostly loses (default output), and the record',
 "stage_work waits for the loaded event only for half 0, 'main queues half 0 first, and its wait already orders the chunk after generate'",
 "a wait orders only the stream that queues it: work_[1] never waits for load_, so half 1's square may read the values before generate has written them (both kernels spin 0.1 ms first, and square starts at once, so it usually reads first): half 1's sum of squares is wrong for most chunks (the second of the two figures of a chunk's line differs from the expected one); the record shows a read on work_[1] not ordered after the write on load_ (and after the values' allocation)",
 'own',
 ("""    CHECK(cudaStreamWaitEvent(s, loaded_, 0));
""", """    if (half == 0) CHECK(cudaStreamWaitEvent(s, loaded_, 0));
"""))

# --------------------------------------------------------------- strict-pool
wrong('strict-pool', 'get-through-the-devices-current-pool-set-to-ours',
 'the record only: every printed line right',
 "get makes the pool the device's current pool (cudaDeviceSetMemPool(device_, pool_)) and allocates with cudaMallocAsync, 'so that the plain call takes from our pool', instead of naming the pool in cudaMallocFromPoolAsync",
 "the blocks do come from the strict pool, so reuse, sums and the reserved mark are right; but the pool changes a setting that is not its own: from the first get on, every cudaMallocAsync on that device, by the program or by any library in it, takes from the strict pool with its policies off, for as long as the pool lives (destroying a device's current pool puts the default pool back); the record shows the device's current pool set by a call that should only allocate",
 'related: cupy/cupy#5191 (the device\'s current pool, set with cudaDeviceSetMemPool, is shared by every library that allocates without naming a pool)',
 ("""    const cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, pool_, s);
    keep(err);
    return err == cudaSuccess ? p : nullptr;""", """    cudaError_t err = cudaDeviceSetMemPool(device_, pool_);
    if (err == cudaSuccess) err = cudaMallocAsync(&p, bytes, s);
    keep(err);
    return err == cudaSuccess ? p : nullptr;"""))
wrong('strict-pool', 'events-still-busy-left-at-destroy',
 'the record only: every printed line right',
 "the destructor destroys the spare events but not those still in the busy deque, 'a recorded event still belongs to the waits queued on it'",
 "a queued wait does not need its event to live on (destroying it is allowed once the wait is queued), and main has waited for both streams before the pool goes: the events still in the deque (at least the last hand's, which no later hand has taken back; on the default run usually several) are never destroyed: a leak at the end of every run; every printed line is right",
 'related: cms-sw/cmssw#28537 (an event cache that keeps recorded events apart from the ready ones)',
 ("    for (cudaEvent_t e : busy_) cudaEventDestroy(e);\n", ""))
wrong('strict-pool', 'event-cap-waits-for-the-oldest-on-the-host',
 'host waits only (the record and the time): every printed line right',
 "next_event keeps at most two events: when it has no spare and two are busy it takes the oldest busy one and calls cudaEventSynchronize on it before handing it out, 'two streams never need more than two events'",
 "a spare is only a convenience, and the host must not wait in hand: with two events busy (the usual case on the default run, since each hand comes microseconds after the last while the fills of 32 MiB take longer) hand now blocks the host until the older record is done, so every round costs a host wait, and with LATE 1 a millisecond of busy each time; the waits on the device are still right, so reuse, sums and the reserved mark are right",
 'related: ComputationalRadiationPhysics/picongpu#1189 (an event pool of a fixed size whose events run out while still in use)',
 ("""    cudaEvent_t e = nullptr;
    const cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);""", """    if (busy_.size() >= 2) {
        cudaEvent_t oldest = busy_.front();
        busy_.pop_front();
        keep(cudaEventSynchronize(oldest));
        return oldest;
    }
    cudaEvent_t e = nullptr;
    const cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);"""))
wrong('strict-pool', 'wait-taken-from-the-front-of-the-busy-queue',
 'default output by timing (fewer reuses), LATE 1 sums, and the record',
 "hand puts its event in the busy deque first and then queues to's wait on busy_.front(), 'the event just put in', taking the front for the newest end",
 "the front is the OLDEST event still busy: when every earlier hand's record is already done (they are moved to the spares first) it is this hand's event and all is right, but when the previous hand's record is not done yet (usual on the default run: the hands come microseconds apart) to waits for an older record, often one of its own stream's, and is not ordered after from's put: with both reuse policies off the pool will not give B the block A freed ('B reused the block A freed' in fewer than 6 rounds, 'reserved at most 64 MiB'), with LATE 1 B's add may read the word before A's copy ('rounds summed correctly' short), and the record shows B's block not handed over through a wait after A's put",
 'own',
 ("""    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));
    busy_.push_back(e);""", """    keep(cudaEventRecord(e, from));
    busy_.push_back(e);
    keep(cudaStreamWaitEvent(to, busy_.front(), 0));"""))

# -------------------------------------------------------------- vmm-growable
wrong('vmm-growable', 'release-counts-back-from-the-reservations-end',
 'default output',
 "release walks the chunks from the last down starting its offset at reserved_, 'the buffer ends where its range ends', instead of at mapped_",
 "after a move the range is half as large again as the request, so the last chunk is looked for well past the mapped bytes: cuMemUnmap is asked for addresses with nothing mapped there and refuses, release stops there ('release: failed') and gives back no chunk and no range ('every reservation given back: no'); only a buffer that fills its reservation exactly (no move, the request a whole number of units equal to the reservation, e.g. growable 64 64) is taken down right",
 'own',
 ("        size_t off = mapped_;\n", "        size_t off = reserved_;\n"))
wrong('vmm-growable', 'move-doubles-the-old-range-without-checking-the-request',
 'other arguments only (a request more than twice the reservation)',
 "grow moves into a range of twice the old reservation (move(2 * reserved_)), 'double the capacity, as a vector does', without looking at the request",
 "the new range must hold the request: the default run's 100 MiB fits the 128 MiB that doubling the 64 MiB reservation gives, and everything is right; but a request more than twice the reservation (growable 200, or growable 100 64 300, whose second move doubles 128 MiB to 256 MiB for 300) gets a range too small: the new chunk is mapped past its end, cuMemMap refuses, and 'grow to ... bytes failed'",
 'own',
 ("            if (!move(round(want + want / 2))) return false;", "            if (!move(2 * reserved_)) return false;"))
wrong('vmm-growable', 'chunk-offset-passed-as-the-maps-offset',
 'default output',
 "grow passes the chunk's place in the buffer (mapped_) as cuMemMap's offset argument, 'the offset of this piece of the buffer', where that argument is an offset into the physical allocation and must be 0",
 "cuMemMap's offset is where in the allocation the mapping starts, and the driver accepts only 0: the first chunk (mapped_ 0) maps, the second is refused, so the default run's grow(100 MiB) fails after its move ('grow to 104857600 bytes failed'); a program that grows only once from nothing sees nothing",
 'related: microsoft/mscclpp#501 (a cuMemMap call given the wrong size/offset arguments for the allocation behind it)',
 ("        if (cuMemMap(base_ + mapped_, piece, 0, h, 0) != CUDA_SUCCESS) {", "        if (cuMemMap(base_ + mapped_, piece, mapped_, h, 0) != CUDA_SUCCESS) {"))
wrong('vmm-growable', 'old-mappings-unmapped-with-the-first-chunks-size',
 'other arguments only (a move of a buffer of several chunks)',
 "move unmaps each old mapping with the size of the first chunk (chunks_[0].bytes, the index written as 0 instead of i) while it steps on by each chunk's own size",
 "cuMemUnmap must be given a whole mapping: the default run's only move happens when the buffer has one chunk (the first 2 MiB), where chunks_[0] is that chunk and all is right; a second move, of a buffer of a 2 MiB and a 98 MiB chunk (growable 100 64 300), unmaps only 2 MiB of the second, which the driver refuses: the move stops after mapping the new range ('grow to 314572800 bytes failed'), leaving the old range half taken down",
 'own',
 ("            CU(cuMemUnmap(base_ + old, chunks_[i].bytes));", "            CU(cuMemUnmap(base_ + old, chunks_[0].bytes));"))

# ------------------------------------------------------------- pool-resource
wrong('pool-resource', 'other-streams-blocks-searched-first',
 'overlap only (the record): counts and sums right',
 "allocate takes the best fit among the OTHER streams' free blocks when there is one and its own only when there is none (the two picks swapped), 'another stream's block has waited longest, use it first'",
 "the contract is the asker's own blocks first, and for a reason: another stream's block costs a wait on that stream: in phase 1 each round the two streams now take each other's freed 4 MiB blocks (each behind a wait on the other's event), so the rounds that should run side by side run one after the other; every block is still ordered after the work that freed it, so no count and no sum changes; only the streams' overlap (and the record's extra waits) shows it",
 'own',
 ("        const Pick pick = own.chunk != SIZE_MAX ? own : other;", "        const Pick pick = other.chunk != SIZE_MAX ? other : own;"))
wrong('pool-resource', 'wait-for-the-stream-that-asked-for-the-chunk',
 'a race, and the record',
 "allocate, taking a free block, waits for the event of the stream that asked the upstream for the block's CHUNK, and only when that is another stream ('the chunk's memory is ready in that stream's order'), instead of for the stream in whose order the block is free",
 "that is right only for the never-used rest of a chunk; a block freed by another stream is free only after that stream's work on it: when stream 0 takes a block stream 1 freed in a chunk stream 0 asked for (phase 2's fourth 4 MiB block can be one, after phase 1's rounds), it waits for nothing and its fill may run while stream 1's last sum still reads the block: sums wrong by timing (the kernels are short, so most runs are right), and the record shows a use not ordered after the free on the other stream; with three streams (phases 5, 7 and 8) more takes wait for the wrong stream",
 'related: rapidsai/rmm#2490 (a cross-stream take that waits on an event which does not cover the work of the stream that freed the blocks)',
 ("            if (f.stream != s) CHECK(cudaStreamWaitEvent(s, event_of(f.stream), 0));",
  "            if (ch.asker != s) CHECK(cudaStreamWaitEvent(s, event_of(ch.asker), 0));"))
wrong('pool-resource', 'freed-block-tagged-with-its-chunks-stream',
 'a race, and the record',
 "deallocate records the freeing stream's event but files the freed block (and joins it) under the stream that asked for its chunk, 'a block goes home to its chunk's stream'",
 "the block is free only after the work queued on the freeing stream: filed under the chunk's stream, that stream takes it back with no wait at all, and any other stream waits for the chunk's stream's event, which does not cover the freeing stream's work; already with two streams (phase 1: stream 1 gives back its 4 MiB cut from stream 0's chunk, stream 0 takes it at the next round) a fill may run while the other stream's sum still reads the block: sums wrong by timing and unordered uses in the record; joins then also merge blocks freed on different streams",
 'related: sonots/cumo#187 (a freed chunk filed under another stream\'s arena, so its new owner writes while the old owner\'s kernels still read)',
 ("""        const cudaStream_t s = stream.get();
        CHECK(cudaEventRecord(event_of(s), s));""", """        CHECK(cudaEventRecord(event_of(stream.get()), stream.get()));
        const cudaStream_t s = chunks_[o.chunk].asker;"""))
wrong('pool-resource', 'other-streams-block-waited-for-on-the-host',
 'host waits only (the record and the time): counts and sums right',
 "allocate, taking another stream's free block, calls cudaEventSynchronize on that stream's event instead of queueing cudaStreamWaitEvent, 'wait until the block is really free, then hand it out'",
 "the block is then surely free when it is handed out, so no sum and no count changes; but the host now waits inside allocate for the other stream's queued work (in phase 1 every round's second take, in phases 3, 5, 7 and 8 each cross-stream take), which the contract forbids ('the host never waits here'), and the streams' work no longer overlaps the host's queueing",
 'own',
 ("            if (f.stream != s) CHECK(cudaStreamWaitEvent(s, event_of(f.stream), 0));",
  "            if (f.stream != s) CHECK(cudaEventSynchronize(event_of(f.stream)));"))
