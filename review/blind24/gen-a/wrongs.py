"""Each wrong file of blind24's first half: its exercise, slug, header and its one edit
(old text, new text) on the exercise's correct file (make_wrong.py applies them)."""
WRONGS = []


def W(ex, slug, where, mistake, why, source, *edits):
    WRONGS.append(dict(ex=ex, slug=slug, where=where, mistake=mistake, why=why, source=source, edits=list(edits)))


# ---------------------------------------------------------------- block-pool
W("block-pool", "block-start-checked-against-the-alignment-only",
  "default output, part 2",
  "deallocate accepts a pointer when its offset inside the class run is a multiple of kAlign, 'every block starts on a 256-byte boundary', instead of a multiple of the class's stride",
  "an address 256 bytes into a block of a class whose stride is larger passes the check and rel / stride rounds it down to the block that holds it: 'pointer 256 bytes into a block refused: no', the last block goes pending on a pointer the caller never got, and the later give-back of that block is refused ('gave every block back: no, ...'); with every class at most 256 bytes (stride 256) nothing shows",
  "own",
  ("    if (rel % stride_[c] != 0) return false;  // inside a block, not at its start",
   "    if (rel % kAlign != 0) return false;  // every block starts on a kAlign boundary"))

W("block-pool", "events-of-blocks-still-out-left-at-destroy",
  "the record only",
  "destroy destroys the event only of blocks that are not handed out, 'a block still out belongs to its caller, and so does its event'",
  "the events are the pool's, made in init for every block: main destroys the pool with one block of each class still handed out, so three events (one a class) are never destroyed; every printed line is right",
  "related: llnl/camp#71 (event wrappers that create cudaEvent_ts and never free them)",
  ("        if (event_[i] != nullptr) cudaEventDestroy(event_[i]);",
   "        if (event_[i] != nullptr && state_[i] != OUT) cudaEventDestroy(event_[i]);"))

W("block-pool", "next-fit-scan-stops-one-short-of-a-full-turn",
  "other arguments only",
  "allocate's next-fit scan looks at blocks_ - 1 blocks from the cursor, 'the block just before the cursor is the one handed out last', instead of every block of the class",
  "the block just behind the cursor is never looked at: with one block a class (block_pool 1) the scan looks at nothing and the very first allocate says nullptr ('allocate(...) returned nullptr while 1 blocks of ... bytes were free'); with the default 8 blocks the skipped block is always reached again once the cursor moves, so the run is right",
  "own",
  ("    for (size_t k = 0; k < blocks_; k++) {\n        const size_t j = (cursor_[c] + k) % blocks_;",
   "    for (size_t k = 0; k + 1 < blocks_; k++) {\n        const size_t j = (cursor_[c] + k) % blocks_;"))

W("block-pool", "events-shared-by-the-same-slot-of-every-class",
  "a race the default run usually wins, and the record",
  "event_of indexes the events by the block's place in its class alone (event_[j]), 'block j of each class is never busy at the same time', so block j of every class shares one event",
  "a give-back of block j of one class records the shared event again, on its own stream: a pending block j of another class is then asked about that later record, on another stream, and may be handed out while the work queued before its own give-back still runs (part 4 spreads the classes over four streams; the 0.2 ms kernels usually end in time, so the words are mostly right, but the record shows a block handed out while another stream's work may still use it)",
  "related: torch/cutorch#222 (a query or wait on an event sees only its most recent record)",
  ("    cudaEvent_t& event_of(size_t c, size_t j) { return event_[c * blocks_ + j]; }",
   "    cudaEvent_t& event_of(size_t, size_t j) { return event_[j]; }"))

# ------------------------------------------------------------ async-pipeline
W("async-pipeline", "drain-synchronises-the-legacy-stream",
  "default output",
  "drain calls cudaStreamSynchronize(0), 'the default stream waits for every other stream', instead of a wait that covers main's streams",
  "main's streams are non-blocking: the legacy default stream is not ordered with them, and a synchronisation of it waits for nothing they hold; main reads the results while the iterations still run ('0 of 12 results right' or close, the last iteration checked first), and the device work still runs when the host memory is freed",
  "OpenPPL/ppl.cv#131 (a synchronisation on the default stream does not cover streams made with cudaStreamNonBlocking)",
  ("    // One wait for the whole device: every stream's iterations at once.\n    CHECK(cudaDeviceSynchronize());",
   "    // One wait for the whole device: every stream's iterations at once.\n    CHECK(cudaStreamSynchronize(0));"))

W("async-pipeline", "output-block-sized-without-the-sums",
  "the record, and results by timing",
  "submit allocates the output block as sumsAt bytes, 'the values rounded up to 256 leave room for the sums', without the BLOCKS long longs the partial sums need",
  "with n = 2^20 floats sumsAt is exactly the values' 4 MiB, so the partial sums (512 bytes) are written past the block's end: an out-of-bounds write in every iteration, into whatever the pool placed after it (often another iteration's block, whose values or sums may then be wrong, by timing); the copies back read them from there too, so a run where nothing else lies there looks right",
  "own",
  ("    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&output), sumsAt + BLOCKS * sizeof(long long), s));",
   "    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&output), sumsAt, s));"))

W("async-pipeline", "stream-picked-with-a-power-of-two-mask",
  "overlap only (the record), other arguments only",
  "submit picks the iteration's stream as streams_[it & (count_ - 1)], the fast modulo of a power of two, instead of it % count_",
  "with 1, 2, 4, 8 or 16 streams the mask is the modulo and all is right; with any other count some streams never get an iteration (3 streams: only streams 0 and 2; 5: only 0 and 4; 6: only 0, 1, 4 and 5), so fewer iterations overlap; results and sums right",
  "own",
  ("    const cudaStream_t s = streams_[it % count_];",
   "    const cudaStream_t s = streams_[it & (count_ - 1)];"))

W("async-pipeline", "copy-in-queued-without-its-stream",
  "a race, and the record",
  "submit copies the input slice in with cudaMemcpyAsync without a stream argument, 'the copy is asynchronous already', so it goes to the legacy default stream",
  "the legacy stream is not ordered with main's non-blocking streams: the copy may run before the block's allocation is ready in the iteration's stream (a block the pool took back from an earlier iteration on that stream whose scale may still read it) and after this iteration's scale has started reading it; scale spins 0.2 ms first, so the copy (4 MiB) usually wins and the results look right, but a slow copy gives wrong values and sums, and the record shows a use not ordered after its allocation on the iteration's stream",
  "related: OpenPPL/ppl.cv#131 (copies left on the default stream while the kernels run on non-blocking streams)",
  ("    CHECK(cudaMemcpyAsync(input, in_ + off, bytes, cudaMemcpyHostToDevice, s));",
   "    CHECK(cudaMemcpyAsync(input, in_ + off, bytes, cudaMemcpyHostToDevice));"))

# ---------------------------------------------------------------- pool-reuse
W("pool-reuse", "held-asks-for-more-than-the-need",
  "default output; other arguments hide it",
  "held asks whether what the pool reserves is MORE than what is in use plus the need (>), 'held means some to spare', instead of at least that much (>=)",
  "with the default 32 MiB buffers a round reserves exactly what it asks for, so the pool that keeps precisely a round's need is never 'held': 'wide: 0 of 6 rounds found their 128 MiB already reserved' (and 0 of 6 for narrow) where 5 of 6 and 6 of 6 are right; with a MIB the pool rounds up (an odd one, e.g. pool_reuse 6 4 3) the pool reserves more than it hands out and the counts look right",
  "own",
  ("    return attr(pool, cudaMemPoolAttrReservedMemCurrent) >= attr(pool, cudaMemPoolAttrUsedMemCurrent) + need;",
   "    return attr(pool, cudaMemPoolAttrReservedMemCurrent) > attr(pool, cudaMemPoolAttrUsedMemCurrent) + need;"))

W("pool-reuse", "reserved-high-reported-from-what-the-pool-holds",
  "other arguments only",
  "report prints what the pool reserves now (cudaMemPoolAttrReservedMemCurrent) as its reserved high-water mark, 'after the phase's last synchronisation the pool holds its threshold, which is the peak'",
  "on the default run the pool holds exactly the peak after the last round, so the line is right; when something trims the pool before the report (pool_reuse 6 4 32 7: TRIM one past the last round) it says 'reserved high 0 MiB' where the phase reserved 128 and 32 MiB at its most",
  "own",
  ("           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB,",
   "           attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB,"))

W("pool-reuse", "phase-restarts-the-reserved-mark-only",
  "default output",
  "enter_phase restarts only the reserved high-water mark, 'the used mark follows what is handed out and falls by itself', leaving out the used mark",
  "a high-water mark never falls until it is restarted: the used mark still holds the wide measuring round's 128 MiB when the narrow phase reports ('phase narrow: used high 128 MiB', 32 wanted); the wide phase's line is right because its own rounds reach the same 128 MiB",
  "own",
  ("    CHECK(put(pool, cudaMemPoolAttrUsedMemHigh, 0));\n    CHECK(put(pool, cudaMemPoolAttrReservedMemHigh, 0));\n    return 0;",
   "    CHECK(put(pool, cudaMemPoolAttrReservedMemHigh, 0));\n    return 0;"))

W("pool-reuse", "phase-leaves-the-trim-to-the-next-synchronisation",
  "default output",
  "enter_phase writes the new threshold and restarts the marks but does not trim, 'a lower threshold gives the rest back by itself'",
  "the threshold acts only at the next synchronisation: entering the narrow phase the pool still holds the wide phase's 128 MiB ('entering narrow: reserved 128 MiB', 32 wanted), the marks restarted there start from 128 ('reserved high 128 MiB' for narrow), and the memory goes back only after the first narrow round",
  "related: rapidsai/rmm#676 (when a pool's memory really goes back: a trim acts at once, a threshold only at a synchronisation)",
  ("    CHECK(cudaMemPoolTrimTo(pool, peak));\n", ""))

# -------------------------------------------------------------- cross-stream
W("cross-stream", "partial-sums-freed-before-their-copy",
  "a race, and the record",
  "stage_copy frees the partial sums right after its wait and before the copy that reads them, the two lines in the other order, 'the free is queued behind the wait, so the sums are done'",
  "the free is in copy_'s order before the copy: once copy_ passes it the pool may give the block to a later chunk's partial sums on reduce_, whose sum kernels can write it before this chunk's copy reads it; copy_ is usually quick enough that the sums come back right, but a late copy brings back another chunk's sums, and the record shows a use after free on copy_ every chunk",
  "own",
  ("    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));\n    CHECK(cudaFreeAsync(ch.partial, copy_));\n",
   "    CHECK(cudaFreeAsync(ch.partial, copy_));\n    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));\n"))

W("cross-stream", "values-freed-on-copy-before-its-wait",
  "a race, and the record",
  "stage_copy frees the values first, before its wait for REDUCED, 'by the copy stage nothing reads the values any more'",
  "copy_ has waited for nothing of this chunk when the free is queued, so the free is ordered after neither square: once copy_ reaches it (at once when copy_ is idle) the pool may hand the block to a later chunk's values, whose generate on load_ may overwrite them while a work stream still squares them; the squares spin 0.1 ms first, so half sums come out wrong by timing (more often at larger MIB), and the record shows a free not ordered after its two readers every chunk",
  "related: PaddlePaddle/Paddle#20530 (a free ordered on one stream while the use is on another)",
  ("    CHECK(cudaStreamWaitEvent(copy_, ev_[REDUCED], 0));\n    CHECK(cudaMemcpyAsync(",
   "    CHECK(cudaFreeAsync(ch.values, copy_));\n    CHECK(cudaStreamWaitEvent(copy_, ev_[REDUCED], 0));\n    CHECK(cudaMemcpyAsync("),
  ("    for (int h = 0; h < HALVES; h++) CHECK(cudaFreeAsync(ch.squares[h], copy_));\n    CHECK(cudaFreeAsync(ch.values, copy_));\n",
   "    for (int h = 0; h < HALVES; h++) CHECK(cudaFreeAsync(ch.squares[h], copy_));\n"))

W("cross-stream", "reduced-recorded-on-the-copy-stream",
  "default output (a race the run loses), and the record",
  "stage_reduce records REDUCED on copy_, 'the event belongs to the stream that waits for it', instead of on reduce_",
  "copy_ then waits for a point of its own order: it copies the partial sums and frees the squares and values at once, while reduce_'s sum kernels (which spin 0.1 ms) have not written or read them: the sums come back as whatever the block held (most chunks wrong), and the record shows uses after free on reduce_",
  "own",
  ("    CHECK(cudaEventRecord(ev_[REDUCED], reduce_));",
   "    CHECK(cudaEventRecord(ev_[REDUCED], copy_));"))

W("cross-stream", "values-allocated-on-the-first-reader",
  "a race the default run usually wins, and the record",
  "stage_load allocates the values on work_[0], 'allocate where the buffer is first read', while generate writes them on load_",
  "the allocation is ordered in work_[0]'s order only: generate on load_ may write a block the pool took back from an earlier chunk (freed on copy_) before that chunk's squares have read it, since any dependency the pool inserts goes into work_[0], not load_; the earlier chunk's frees come after its whole pipeline, so the sums are usually right, but the record shows a use not ordered after its allocation every chunk",
  "own",
  ("    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.values), (size_t)ch.n * sizeof(float), load_));",
   "    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.values), (size_t)ch.n * sizeof(float), work_[0]));"))

# --------------------------------------------------------------- strict-pool
W("strict-pool", "hand-polls-the-event-before-the-wait",
  "host waits only (the record and the time)",
  "hand, after recording the event on from, polls cudaEventQuery until it stops answering cudaErrorNotReady and only then queues to's wait, 'so that the block is surely free when to asks for it'",
  "the wait is still queued, so the pool follows the hand and B gets A's block: reuse, sums and the reserved mark are right; but every hand holds the host until from's queued work is done (a millisecond a round with LATE 1), a host wait in a call that must not make one, and no stream ever runs ahead of the other",
  "related: NVIDIA/cub#156 (an allocator deciding a block's reuse from an event's query answer on the host)",
  ("    keep(cudaEventRecord(e, from));\n    keep(cudaStreamWaitEvent(to, e, 0));",
   "    keep(cudaEventRecord(e, from));\n    while (cudaEventQuery(e) == cudaErrorNotReady) {\n    }\n    keep(cudaStreamWaitEvent(to, e, 0));"))

W("strict-pool", "last-hand-event-kept-back-at-destroy",
  "the record only",
  "the destructor destroys every hand's event but the last, 'the last wait queued on it may not have run yet'",
  "a wait that is queued does not need its event to live on (destroying it is deferred by the driver where needed), and main has waited for both streams anyway: one event is never destroyed (a leak at the end on every run); every printed line is right",
  "tromp/cuckoo#69 (events created and never destroyed)",
  ("    for (size_t i = 0; i < handed_.size(); i++) cudaEventDestroy(handed_[i]);",
   "    for (size_t i = 0; i + 1 < handed_.size(); i++) cudaEventDestroy(handed_[i]);"))

W("strict-pool", "get-allocates-on-the-legacy-stream",
  "default output, and the record",
  "get allocates with cudaMallocFromPoolAsync(&p, bytes, pool_, 0), 'the allocation only books the block, the stream that uses it comes later', instead of in s's order",
  "the pool decides reuse for the stream the allocation names: the legacy stream never waited for A's hand, and with opportunistic reuse and internal dependencies off the pool will not give it A's freed block: '0 of 6 rounds: B reused the block A freed' and 'reserved at most 64 MiB'; the block is also used on a non-blocking stream that is not ordered after its allocation",
  "related: supranational/sppark#81 (stream-ordered calls made on the legacy default stream while the work runs on the program's own streams)",
  ("    const cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_, s);",
   "    const cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_, 0);"))

W("strict-pool", "hand-waits-for-the-last-puts-event",
  "other arguments only (LATE 1)",
  "put records a fresh event on its stream right after the free and hand only queues to's wait on the latest of those, 'a hand is there to pass the put block on' (the one mistake touches put and hand)",
  "hand must order to after everything from has queued, not only its puts: with the default arguments the put is the last thing A queues before the hand and all is right; with LATE 1 A queues busy and the word's copy after the put, B's add does not wait for them and reads the word before it is copied ('0 of 6 rounds summed correctly' or close); reuse right",
  "related: torch/cutorch#222 (a wait covers only the work before the record it sees)",
  ("""void StrictPool::put(void* p, cudaStream_t s) {
    keep(cudaFreeAsync(p, s));
}""",
"""void StrictPool::put(void* p, cudaStream_t s) {
    keep(cudaFreeAsync(p, s));
    cudaEvent_t e = nullptr;
    const cudaError_t made = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    keep(made);
    if (made != cudaSuccess) return;
    handed_.push_back(e);
    keep(cudaEventRecord(e, s));
}"""),
  ("""    cudaEvent_t e = nullptr;
    const cudaError_t made = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    keep(made);
    if (made != cudaSuccess) return;
    handed_.push_back(e);
    keep(cudaEventRecord(e, from));
    keep(cudaStreamWaitEvent(to, e, 0));""",
"""    (void)from;
    if (handed_.empty()) return;
    keep(cudaStreamWaitEvent(to, handed_.back(), 0));"""))

# -------------------------------------------------------------- vmm-growable
W("vmm-growable", "retained-handles-never-released",
  "the record only",
  "move maps each handle taken back with cuMemRetainAllocationHandle into the new range and never releases it, 'retaining only looks the handle up'",
  "cuMemRetainAllocationHandle takes a new reference that must be given back with cuMemRelease: every chunk that lived through a move (the first 2 MiB on the default run, every chunk of a THEN move) keeps a reference after release() unmaps it, so its physical memory stays allocated until the process ends; 'release: ok' and 'every reservation given back: yes'",
  "NVIDIA/cuda-python#2882 (a grow path that retains the old handle to map it into the new range and never releases that reference)",
  ("            const CUresult mapped = cuMemMap(fresh + done, c.bytes, 0, h, 0);\n            cuMemRelease(h);\n",
   "            const CUresult mapped = cuMemMap(fresh + done, c.bytes, 0, h, 0);\n"))

W("vmm-growable", "move-retains-every-handle-at-the-old-start",
  "other arguments only (a second move)",
  "move takes each chunk's handle back from base_, 'the handle of the allocation at the buffer's address', instead of from the chunk's own address base_ + its offset",
  "with one chunk (the default run's move: only the first 2 MiB are mapped when the buffer moves) base_ is that chunk's address and all is right; a move of a buffer of several chunks (e.g. growable 100 64 300: past the 200 MiB range) gets the first chunk's 2 MiB handle for the 98 MiB chunk, the map is refused, the move undone and 'grow to ... bytes failed'",
  "own",
  ("            if (cuMemRetainAllocationHandle(&h, reinterpret_cast<void*>(base_ + done)) != CUDA_SUCCESS) return undo();",
   "            if (cuMemRetainAllocationHandle(&h, reinterpret_cast<void*>(base_)) != CUDA_SUCCESS) return undo();"))

W("vmm-growable", "old-range-unmapped-but-never-freed",
  "default output",
  "move unmaps the old chunks and then only moves base_ and reserved_ to the new range, 'unmapping gives the old range back', leaving out its cuMemAddressFree",
  "an address reservation lives until cuMemAddressFree: the old 64 MiB range stays reserved after release(), so the program cannot reserve it again at its old start ('every reservation given back: no'); everything else right",
  "own",
  ("        CU(cuMemAddressFree(base_, reserved_));\n        base_ = fresh;",
   "        base_ = fresh;"))

W("vmm-growable", "headroom-of-half-the-request-left-unrounded",
  "other arguments only",
  "grow moves into a range of want + want / 2, 'grow by half again, as a vector does', a size not rounded to the granularity",
  "cuMemAddressReserve takes only whole granularity units: for the default 100 MiB (50 units) 150 MiB is whole and all is right; for a request of an odd number of units (e.g. growable 102, or 98) the half is not, the reservation is refused and 'grow to ... bytes failed'",
  "own",
  ("            if (!move(2 * want)) return false;",
   "            if (!move(want + want / 2)) return false;"))

# ------------------------------------------------------------- pool-resource
W("pool-resource", "wait-queued-on-the-freeing-stream",
  "a race, and the record",
  "allocate, taking another stream's free block, queues the wait the other way round: the freeing stream waits for the asker's event, 'the two streams are now ordered'",
  "what must wait is the asker, for the work before the block's free (or, for a chunk's rest, the upstream's clearing); the freeing stream waiting for the asker orders nothing of what the asker does next: from phase 1's first round (stream 1's 4 MiB cut from the rest of a chunk stream 0 asked for, not ordered after the chunk's clearing) to phase 3 (stream 1's 16 MiB on the block stream 0's phase-2 kernels still sum), kernels of two streams touch one block at once: sums wrong by timing, and the record shows unordered uses",
  "related: PaddlePaddle/Paddle#20530 (the wait put on the wrong stream in an allocator's cross-stream hand-off)",
  ("            CHECK(cudaStreamWaitEvent(s, event_of(fromStream), 0));",
   "            CHECK(cudaStreamWaitEvent(fromStream, event_of(s), 0));"))

W("pool-resource", "size-rounded-with-or-255-plus-one",
  "default output (exact multiples only)",
  "allocate rounds the request with (bytes | 255) + 1, 'set the low bits and step to the next 256', which adds 256 bytes to a request that is already a multiple of 256",
  "every 4 MiB request takes 4 MiB + 256 (the 4 MiB - 100 ones come out right): the four 4 MiB blocks of phase 2 no longer fit in one 16 MiB chunk and the 16 MiB request after them does not fit in their joined block ('2. ... 2 chunk(s) taken' where 1 is wanted, later counts one or two higher), though no block is wrong; a program whose sizes are never multiples of 256 sees nothing",
  "own",
  ("        const size_t need = bytes == 0 ? mr::default_alignment : (bytes + mr::default_alignment - 1) / mr::default_alignment * mr::default_alignment;",
   "        const size_t need = (bytes | (mr::default_alignment - 1)) + 1;"))

W("pool-resource", "chunk-asked-for-on-the-legacy-stream",
  "a race, and the record",
  "allocate asks the upstream for a new chunk on the default stream (mr::stream_ref{cudaStream_t{}}), 'a chunk is the pool's own, not any one stream's', and still records the asker's event after it",
  "the upstream clears the chunk on the stream it is given; the legacy default stream is not ordered with the program's non-blocking streams, so the asker's first kernels on the new block (and, through the asker's event, another stream's on its rest) may run while the clearing still runs: a fill overwritten by zeros gives wrong sums by timing (the memsets are short, so most runs look right), and the record shows uses not ordered after the chunk's clearing",
  "related: supranational/sppark#81 (stream-ordered work put on the legacy default stream, which the code's own non-blocking streams never order)",
  ("        char* p = static_cast<char*>(upstream_.allocate(stream, ask));",
   "        char* p = static_cast<char*>(upstream_.allocate(mr::stream_ref{cudaStream_t{}}, ask));"))

W("pool-resource", "wait-named-after-the-last-stream-searched",
  "other arguments only (three streams), by timing and in the record",
  "allocate, searching the other streams' free blocks, notes the stream to wait for once per map searched, after its search, whenever a best block has been found so far, instead of together with the best block (the one mistake touches two lines of one loop)",
  "with two streams there is one other map and the stream is right; with three (phase 5) A's 8 MiB take finds only B's block but, when C's map is searched after B's (the maps are ordered by the streams' handles), waits for C instead of B: A's kernels on B's block may run beside B's (sums 31 and 34 wrong by timing), an unordered use on A in the record",
  "own",
  ("                fb = it;\n                fromStream = f.first;\n            }\n        }",
   "                fb = it;\n            }\n            if (from != nullptr) fromStream = f.first;\n        }"))
