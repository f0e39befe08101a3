"""Every wrong file of this set: its exercise, slug, header lines and its
one mistake, as edits (old text -> new text) on the correct body. Every
old text must occur exactly once. A mistake that moves a line is two
edits of one mistake (removed in one place, added in another)."""

W = []


def wrong(exercise, slug, mistake, shows, why, source, edits):
    W.append(dict(exercise=exercise, slug=slug, mistake=mistake, shows=shows, why=why, source=source, edits=edits))


# ---------------------------------------------------------------- block-pool
wrong(
    "block-pool", "stride-left-at-the-class-size",
    "init lays each class's blocks out at the class's own size (stride_[c] = classBytes[c]), 'a block of 1000 bytes needs 1000 bytes', without rounding it up to 256",
    "default output",
    "every block must start on a 256-byte boundary; with the default classes of 1000, 3000 and 10000 bytes the blocks of a class start 1000 (3000, 10000) bytes apart, so all but the first of each class are off the boundary ('blocks aligned to 256 bytes: no'); only classes that are all multiples of 256 hide it",
    "related: pjsip/pjproject#980 (a memory pool whose blocks were not laid out on the alignment it promised, so the memory it handed out was misaligned)",
    [("        stride_[c] = (classBytes[c] + kAlign - 1) / kAlign * kAlign;\n",
      "        stride_[c] = classBytes[c];\n")],
)
wrong(
    "block-pool", "destroy-walks-each-pending-list-while-there-is-a-next",
    "destroy walks each class's pending list only while the block has a next one (b >= 0 && next_[b] >= 0), the usual 'while (p->next)' walk, so the last block of every pending list keeps its event",
    "the record only (a leak)",
    "every printed line is right; allocate harvests only a class whose idle list is empty, so when the pool is destroyed the default run still has given-back blocks pending in every class, and the oldest of each class's list, its tail, is skipped: its event is never destroyed (one leaked event per class with a pending block; a class with a single pending block leaks that one); the memory and every other event go back",
    "related: llnl/camp#71 (CUDA events a wrapper creates and never destroys)",
    [("        for (int b = pending_[c]; b >= 0; b = next_[b]) {\n",
      "        for (int b = pending_[c]; b >= 0 && next_[b] >= 0; b = next_[b]) {\n")],
)
wrong(
    "block-pool", "harvest-takes-an-unlinked-block-for-the-previous-one",
    "harvest sets prev = cur for every block it passes, the done blocks it has just moved to the idle list too (the else around it left out), 'prev is always the block before the next one'",
    "default output, by timing",
    "after a done block is moved to the idle list, prev names that idle block, so the next done block is unlinked by writing next_ of the idle block: the idle list then runs on into the rest of the pending list, and the block meant to be unlinked stays on the pending list while it is also pushed on the idle list: the lists are corrupted, so blocks still in use are handed out, a block goes to two requests ('words overwritten'), or blocks drop out of both lists ('no block of 1000 bytes came back within 2 s'); a harvest is right only while no two done blocks follow each other in a pending list, and part 3's first harvest already finds the eight blocks part 2 gave back, all done, in a row (a host-side model of the lists, with events stubbed, lost blocks at the second refill)",
    "own",
    [("        } else {\n            prev = cur;\n        }\n        cur = after;\n",
      "        }\n        prev = cur;\n        cur = after;\n")],
)
wrong(
    "block-pool", "list-links-kept-in-signed-chars",
    "the lists' links are kept in a std::vector<signed char>, 'a class has at most 64 blocks', while a link holds a block's number counted across all the classes",
    "other arguments only (more than 128 blocks in all)",
    "the default run has 24 blocks (numbers 0 to 23) and every line is right; with more than 128 blocks in all (block_pool 64 with the three default classes: numbers up to 191, or 32 blocks of five classes) a link to block 128 or higher is stored as a negative number, which every walk reads as the end of its list: after the first block of such a class is handed out, the class's idle list looks empty ('allocate(...) returned nullptr while N blocks of ... bytes were free' in part 1), and pending lists are cut short the same way (blocks never come back, and their events are never destroyed)",
    "own",
    [("    std::vector<int> next_;\n", "    std::vector<signed char> next_;\n")],
)

# ------------------------------------------------------------ async-pipeline
wrong(
    "async-pipeline", "chain-link-recorded-before-its-wait",
    "drain records each stream's link before that stream's wait for the previous link (the two lines in the other order), 'record, then join'",
    "a race the default run usually wins, and the record",
    "a record captures only what its stream has queued before it, so each link now stands for its own stream alone and the one host wait, on the last link, waits for the last stream's work only (the waits queued after the records order nothing the host waits for); on the default run the last stream runs iterations 3, 7 and 11, the last queued, so the others are usually done when it is and every result is right; with iterations that leave the last stream less work (async_pipeline 5: stream 0 runs iterations 0 and 4, stream 3 only iteration 3) the host may read results still being copied back ('results right' short, by timing), and the record shows the host reading buffers whose copies it never waited for",
    "related: torch/cutorch#222 (a join that waited only for the last record made; its tests passed because the last stream happened to finish last)",
    [("        if (i > 0) CHECK(cudaStreamWaitEvent(streams_[i], link_[i - 1], 0));\n        CHECK(cudaEventRecord(link_[i], streams_[i]));\n",
      "        CHECK(cudaEventRecord(link_[i], streams_[i]));\n        if (i > 0) CHECK(cudaStreamWaitEvent(streams_[i], link_[i - 1], 0));\n")],
)
wrong(
    "async-pipeline", "host-region-freed-while-still-registered",
    "the destructor gives the host region back with free alone, without cudaHostUnregister, 'free returns the memory, pinned or not'",
    "default output",
    "memory page-locked with cudaHostRegister stays registered with the driver until it is unregistered: the pages go back to the C library while the driver still holds the range as pinned host memory ('host buffers given back: no'); every result is right",
    "related: pytorch/pytorch#134919 (memory pinned with cudaHostRegister must be unregistered before it is freed)",
    [("    CHECK(cudaHostUnregister(region_));\n", "")],
)
wrong(
    "async-pipeline", "links-deleted-without-being-destroyed",
    "the destructor deletes the array of link events without destroying them (the cudaEventDestroy loop left out), 'delete[] frees the events'",
    "the record only (a leak)",
    "every printed line is right; delete[] frees only the array of handles: the events themselves belong to the driver until cudaEventDestroy, so every pipeline leaks one event a stream (4 on the default run)",
    "related: tromp/cuckoo#69 (events created with cudaEventCreate and never destroyed)",
    [("    for (int i = 0; i < count_; i++) CHECK(cudaEventDestroy(link_[i]));\n", "")],
)
wrong(
    "async-pipeline", "drain-waits-for-the-link-of-the-last-iterations-stream",
    "drain's host wait is on the link of the stream that ran the last iteration (link_[(iterations - 1) % count]), 'the last iteration queued is the last to finish', instead of the chain's last link",
    "other arguments only, and then a race",
    "on the default run (12 iterations on 4 streams) the last iteration's stream is the chain's last and all is right; when the iterations are not a multiple of the streams (async_pipeline 10, or 5, or fewer iterations than streams: async_pipeline 3 8) the link waited for lies inside the chain and covers only the streams up to it: the later streams' iterations were queued earlier and are usually done anyway, so the output is mostly right, but nothing orders the host's reads after their copies back, and the record shows it",
    "own",
    [("    CHECK(cudaEventSynchronize(link_[count_ - 1]));\n",
      "    CHECK(cudaEventSynchronize(link_[(iterations_ - 1) % count_]));\n")],
)

# ---------------------------------------------------------------- pool-reuse
wrong(
    "pool-reuse", "pool-props-left-uninitialised",
    "make_pool writes the four fields it knows of a cudaMemPoolProps it never cleared (the memset left out), 'every field that matters is written'",
    "by chance (what the stack held)",
    "the struct has more than those four fields: win32SecurityAttributes and reserved bytes, which newer CUDA reads as the pool's maximum size and usage flags; whatever the stack left there reaches cudaMemPoolCreate: zeros pass and every line is right; a non-zero maximum size caps the pool (a wide round fails with out of memory) and other garbage makes the creation fail (the program stops at make_pool)",
    "related: chelsea0x3b/cudarc#558 (cudaMemPoolProps' layout changes across CUDA versions, its reserved bytes read as new fields)",
    [("    memset(&props, 0, sizeof props);\n", "")],
)
wrong(
    "pool-reuse", "figure-table-lists-used-high-for-reserved-high",
    "the table of five figures lists the two high-water marks the wrong way round (cudaMemPoolAttrUsedMemHigh under RESERVED_HIGH, cudaMemPoolAttrReservedMemHigh under USED_HIGH)",
    "other arguments only (buffers the pool rounds up)",
    "measure_peak then takes the used mark for the peak and report prints each mark under the other's name; on the default run a round's 32 MiB buffers are reserved exactly, the two marks are equal (128 and 32 MiB) and every line is right; with buffers the pool rounds up (pool_reuse 6 4 3, or 1 MiB buffers) the reserved mark is above the used one: the measured peak is only the bytes in use, the threshold is set below what a round reserves, so the pool gives memory back at the rounds' synchronisations and asks the driver again, and the report's used and reserved figures come out swapped",
    "own",
    [("{cudaMemPoolAttrReservedMemCurrent, cudaMemPoolAttrReservedMemHigh, cudaMemPoolAttrUsedMemCurrent, cudaMemPoolAttrUsedMemHigh, cudaMemPoolAttrReleaseThreshold}",
      "{cudaMemPoolAttrReservedMemCurrent, cudaMemPoolAttrUsedMemHigh, cudaMemPoolAttrUsedMemCurrent, cudaMemPoolAttrReservedMemHigh, cudaMemPoolAttrReleaseThreshold}")],
)
wrong(
    "pool-reuse", "measure-trims-the-devices-default-pool",
    "measure_peak empties the device's default pool (cudaDeviceGetDefaultMemPool, then cudaMemPoolTrimTo(0)) instead of its own, 'a measure starts from an empty device'",
    "the record only",
    "every printed line is right: its own pool is empty anyway when it measures (the 0 threshold written just before, and the previous round's synchronisation gave everything back); but the program trims a pool it does not own: what the device's default pool keeps for other code in the process (a library's cudaMallocAsync with its threshold raised) is given back under it, and the record shows a trim of the default pool",
    "related: rapidsai/rmm#676 (a resource that trims the device's default pool, which every cudaMallocAsync in the process shares)",
    [("    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));\n    CHECK(cudaMemPoolTrimTo(pool, 0));\n    CHECK(restart_marks(pool));\n",
      "    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));\n    cudaMemPool_t dflt = nullptr;\n    CHECK(cudaDeviceGetDefaultMemPool(&dflt, 0));\n    CHECK(cudaMemPoolTrimTo(dflt, 0));\n    CHECK(restart_marks(pool));\n")],
)
wrong(
    "pool-reuse", "phase-entry-waits-for-the-device-instead-of-trimming",
    "enter_phase writes the new threshold and then synchronises the device instead of trimming, 'the pool gives back what is over its threshold at the next synchronisation'",
    "a host wait in the record (and the output if the driver keeps what it holds)",
    "the pool does try to release what lies above its threshold at a synchronisation, so entering the narrow phase usually still finds 'reserved 32 MiB' and the figures are right; but every phase boundary now makes the host wait for the whole device, which nothing needs (each round already waited for its stream), and no trim is made: the memory goes back only as the driver decides at that synchronisation (if it keeps the 128 MiB, 'entering narrow: reserved 128 MiB' and a reserved mark of 128)",
    "related: pytorch/executorch#22312 (memory a pool kept that a synchronisation gave back where a trim had not)",
    [("    CHECK(cudaMemPoolTrimTo(pool, peak));\n", "    CHECK(cudaDeviceSynchronize());\n")],
)

# -------------------------------------------------------------- cross-stream
wrong(
    "cross-stream", "reduce-waits-twice-for-the-last-half",
    "stage_reduce's wait names the last half's event at every turn of its loop (squared(HALVES - 1) where squared(h) was meant), 'half 1 is squared last, so once it is done both are'",
    "a race the default run usually wins, and the record",
    "the two halves are squared on two streams at once, and nothing now orders half 0's square before reduce_'s sum of it, nor before the free of the values on reduce_; half 0 is queued first and both squares take the same time, so half 0 is usually done when half 1 is and the sums are right; when work_[0] runs late its partial sums come out wrong, and the record shows half 0's squares read on reduce_, and the values freed there, with no order after work_[0]'s write and read",
    "own",
    [("        CHECK(cudaStreamWaitEvent(reduce_, ev_[squared(h)], 0));\n",
      "        CHECK(cudaStreamWaitEvent(reduce_, ev_[squared(HALVES - 1)], 0));\n")],
)
wrong(
    "cross-stream", "second-half-waits-for-the-first-before-squaring",
    "stage_work makes every half after the first wait for the half before it (work_[1] waits for half 0's SQUARED) before it allocates and squares, 'a chunk's halves in order'",
    "overlap only (the record and the time)",
    "every sum is right: the halves read disjoint values and write squares of their own, so nothing needs this wait; the two squares of a chunk, which should run side by side on work_[0] and work_[1], now run one after the other, and every chunk reaches reduce_ a square later; no host wait, and load_ still never waits",
    "own",
    [("    CHECK(cudaStreamWaitEvent(w, ev_[LOADED], 0));\n",
      "    CHECK(cudaStreamWaitEvent(w, ev_[LOADED], 0));\n    if (half > 0) CHECK(cudaStreamWaitEvent(w, ev_[squared(half - 1)], 0));\n")],
)
wrong(
    "cross-stream", "squares-freed-on-their-work-stream-after-squaring",
    "each half's squares are freed on their own work stream right after square is queued (the free moved there from stage_reduce), 'a buffer goes back on the stream that made it once its kernel is queued'",
    "a race, and the record",
    "the squares have a reader on another stream, reduce_'s sum, which waits for the SQUARED event recorded after the free: freed in work_[h]'s order they are free before that sum runs, and the next chunk's squares on the same stream (allocated in that stream's order, after the free) may be given the same memory and written while reduce_ still sums the previous chunk's: sums wrong by timing; the record shows every chunk's squares read after their free",
    "related: NVIDIA/cuCascade#186 (buffers freed on their allocating stream, unordered against reads still running on the consumer's stream, recycled under the reader)",
    [("    CHECK(cudaGetLastError());\n    CHECK(cudaEventRecord(ev_[squared(half)], w));\n",
      "    CHECK(cudaGetLastError());\n    CHECK(cudaFreeAsync(ch.squares[half], w));\n    CHECK(cudaEventRecord(ev_[squared(half)], w));\n"),
     ("        CHECK(cudaFreeAsync(ch.squares[h], reduce_));\n", "")],
)
wrong(
    "cross-stream", "values-block-sized-for-four-mib",
    "stage_load allocates 4 MiB for the values (cudaMallocAsync(&ch.values, (size_t)4 << 20, load_)), 'a chunk is 4 MiB', instead of n floats",
    "other arguments only (chunks larger than 4 MiB)",
    "the default chunks are 4 MiB and every line is right (smaller chunks only waste memory); with 5 to 8 MiB (cross_stream 8 8) generate writes past the block, into whatever the pool placed after it (the squares and sums of chunks in flight, or addresses with nothing behind them): sums wrong or an illegal address, and the record shows writes outside the allocation",
    "own",
    [("(size_t)ch.n * sizeof(float), load_", "(size_t)4 << 20, load_")],
)

# --------------------------------------------------------------- strict-pool
wrong(
    "strict-pool", "last-hands-event-left-at-destroy",
    "the destructor destroys the pool but not the event the last hand kept, 'each hand destroys the one before it, so none is left'",
    "the record only (a leak)",
    "every printed line is right; each hand destroys only the previous hand's event, so the last hand's (round 6's hand from B to A on the default run) is still the pool's when it goes, and nothing destroys it",
    "related: zama-ai/tfhe-rs#3186 (temporary events made for stream waits and never destroyed)",
    [("    if (last_ != nullptr) cudaEventDestroy(last_);\n    last_ = nullptr;\n", "    last_ = nullptr;\n")],
)
wrong(
    "strict-pool", "pool-made-the-devices-current-pool",
    "the constructor also makes its pool the device's current pool (cudaDeviceSetMemPool(device, pool_)), 'so that the device knows the pool', while get still names the pool in cudaMallocFromPoolAsync",
    "the record only",
    "every printed line is right: the blocks come from the strict pool either way; but from then on every cudaMallocAsync on the device, by the program or any library in it, takes from a pool with opportunistic reuse and internal dependencies off, for as long as the pool lives (destroying it puts the default pool back): a setting the pool does not own, which the record shows",
    "related: rapidsai/rmm#2497 (a current pool set by someone else is that code's choice, which a library must not replace or change)",
    [("    const cudaMemPoolAttr off[] = {",
      "    keep(cudaDeviceSetMemPool(device, pool_));\n    const cudaMemPoolAttr off[] = {")],
)
wrong(
    "strict-pool", "hand-also-synchronises-the-from-stream",
    "hand queues to's wait on the event and then also synchronises from on the host, 'to be sure the put is done before to allocates'",
    "host waits only (the record and the time)",
    "every printed line is right: the event already orders to after from without the host; the host now waits at every hand for everything from has queued (twice a round; with LATE 1 a millisecond of busy each time), and can no longer queue B's work while A's runs",
    "related: lsds/KungFu#65 (a host synchronisation where an event record and a stream wait would do)",
    [("    keep(cudaStreamWaitEvent(to, e, 0));\n",
      "    keep(cudaStreamWaitEvent(to, e, 0));\n    keep(cudaStreamSynchronize(from));\n")],
)
wrong(
    "strict-pool", "pool-props-without-an-allocation-type",
    "the constructor writes the props' location and handle types but not allocType, 'value-initialised props are an ordinary device pool'",
    "default output",
    "allocType 0 is cudaMemAllocationTypeInvalid, which cudaMemPoolCreate refuses: error() reports 'invalid argument' at main's first check and the program stops before its first round",
    "related: NVIDIA/cccl#11462 (the pool props' fields that must be set for a pool to be created, the allocation type first)",
    [("    props.allocType = cudaMemAllocationTypePinned;\n", "")],
)

# -------------------------------------------------------------- vmm-growable
wrong(
    "vmm-growable", "extension-placed-elsewhere-kept-reserved",
    "grow, when the driver places the extension somewhere other than the hint, moves without giving that range back (its cuMemAddressFree left out), 'it is only addresses'",
    "the record only, and only when the extension lands elsewhere",
    "with the addresses after the reservation taken (the hidden run with TAKEN 1), or a driver that does not honour the hint, the buffer moves and every printed line is right, 'every reservation given back: yes' included, since the program asks only about the buffer's own ranges; but a range of the request's size (100 MiB on the default sizes) stays reserved until the process ends, one more at every refused extension",
    "related: NVIDIA/DALI#3128 (a VM resource's handling of reservations the driver does not place at their hint)",
    [("                    CU(cuMemAddressFree(got, extra));\n", "")],
)
wrong(
    "vmm-growable", "ranges-freed-with-the-first-ranges-size",
    "release frees every range with the first range's size (cuMemAddressFree(r.base, ranges_.front().bytes)), 'the buffer's ranges are of its reservation's size'",
    "only when the buffer grew in place",
    "a moved buffer has one range and is released right; a buffer that grew in place (the driver granted the extension at the hint) frees its last range, of the request's size (100 MiB by default), with the first one's (64 MiB): cuMemAddressFree refuses a size that is not the range's, release stops ('release: failed') and no range goes back ('every reservation given back: no')",
    "own",
    [("            CU(cuMemAddressFree(r.base, r.bytes));\n            ranges_.pop_back();\n",
      "            CU(cuMemAddressFree(r.base, ranges_.front().bytes));\n            ranges_.pop_back();\n")],
)
wrong(
    "vmm-growable", "old-ranges-freed-before-their-mappings-are-unmapped",
    "move frees the old ranges first and unmaps the old mappings after (the two lines in the other order), 'the addresses go first, the memory behind them after'",
    "only when the buffer moves",
    "an address range with mappings in it cannot be freed: cuMemAddressFree refuses it and the move stops there, with the new range already mapped ('grow to ... bytes failed'); a buffer that grows in place never moves and is right, so this shows in the hidden run with the addresses after the reservation taken (TAKEN 1), or wherever the driver does not place the extension at the hint",
    "related: ROCm/ROCR-Runtime#257 (an address range freed while a handle is still mapped in it is refused as still in use)",
    [("        for (const Chunk& c : chunks_) CU(cuMemUnmap(base_ + c.off, c.bytes));\n        for (const Range& r : ranges_) CU(cuMemAddressFree(r.base, r.bytes));\n",
      "        for (const Range& r : ranges_) CU(cuMemAddressFree(r.base, r.bytes));\n        for (const Chunk& c : chunks_) CU(cuMemUnmap(base_ + c.off, c.bytes));\n")],
)
wrong(
    "vmm-growable", "move-waits-for-the-per-thread-stream",
    "move waits for the per-thread default stream (cuStreamSynchronize(CU_STREAM_PER_THREAD)) before it unmaps the old addresses, 'wait for this thread's work', instead of for the whole context",
    "a race, and only when the buffer moves",
    "the per-thread default stream orders nothing of the caller's non-blocking stream, where main's first fill may still write the old addresses (nor of the legacy default stream, where the later fills run before a second grow): unmapped under it, the kernel faults ('a kernel failed') or its writes are lost; the 1 MiB fill is usually over before the move has made and mapped its new range, so most runs are right, and a buffer that grows in place never moves",
    "own",
    [("        CU(cuCtxSynchronize());\n", "        CU(cuStreamSynchronize(CU_STREAM_PER_THREAD));\n")],
)

# ------------------------------------------------------------- pool-resource
wrong(
    "pool-resource", "request-rounded-down-to-whole-units",
    "allocate counts the units a request needs as bytes / 256, rounded down, 'the block is a whole number of units'",
    "default output",
    "a request that is not a multiple of 256 gets less than it asked for: phase 1's 4 MiB less 100 bytes gets 16383 units, 156 bytes short, so its kernels write into the next unit, and the runs no longer line up: phase 2's fourth 4 MiB block no longer fits the 16383 units the other stream gave back, the pool grows where it should not ('2. ...: 2 chunk(s) taken') and counts and sums shift; a request under 256 bytes gets no unit at all, and its pointer is handed out again while in use",
    "related: libgit2/libgit2#2451 (pool allocation sizes rounded up so that every item keeps its boundary)",
    [("        const size_t need = (std::max<size_t>(bytes, 1) + kUnit - 1) / kUnit;\n",
      "        const size_t need = std::max<size_t>(bytes, 1) / kUnit;\n")],
)
wrong(
    "pool-resource", "rest-of-another-streams-run-retagged-to-the-asker",
    "allocate, cutting its block from another stream's run, tags the rest of that run as the asker's, 'the asker has waited for that stream, so the rest is free in its order now'",
    "three streams only (phases 5 and 7), and a race",
    "the rest is free in the asker's order only after the asker's wait, and the asker's event was recorded before that wait (or never): a third stream taking the rest waits for the asker's event, which does not cover the freeing stream's work; in phase 7 B takes the rest of C's block behind a wait for A's event, never recorded on that pool (a wait for nothing), while C's sum may still read it: sums wrong by timing and unordered uses in the record; with two streams the rest is always taken by one of the two, whose later frees record their events, and every line is right",
    "related: NVIDIA/cuCascade#186 (a buffer handed to a new owner's stream without the previous stream's reads ordered before it)",
    [("        std::fill(t.begin() + take.at, t.begin() + take.at + need, kInUse);\n",
      "        std::fill(t.begin() + take.at, t.begin() + take.at + need, kInUse);\n        if (take.tag != mine) std::fill(t.begin() + take.at + need, t.begin() + take.at + take.len, mine);\n")],
)
wrong(
    "pool-resource", "new-chunks-event-recorded-before-the-upstream-clears-it",
    "allocate records the asker's event before it asks the upstream for a new chunk instead of after (the record moved up), 'mark the stream, then grow'",
    "a race, and the record",
    "the upstream clears the new chunk on the asker's stream, so its rest is free in another stream's eyes only after that clearing; recorded before it, the asker's event lets another stream cut the rest while the upstream's memsets still run: in phase 1's first round the second stream takes the rest of the first stream's new chunk and fills it while the clearing of the chunk may still be writing zeros over it (sums wrong by timing; the memsets are quick, so usually right), and the record shows the block used with no order after the upstream's writes; with three streams phase 5 (A takes the rest of C's chunk) too",
    "own",
    [("            c.base = static_cast<char*>(upstream_.allocate(stream, c.bytes));\n",
      "            CHECK(cudaEventRecord(events_[mine - 1].second, s));\n            c.base = static_cast<char*>(upstream_.allocate(stream, c.bytes));\n"),
     ("            chunks_.push_back(std::move(c));\n            CHECK(cudaEventRecord(events_[mine - 1].second, s));\n",
      "            chunks_.push_back(std::move(c));\n")],
)
wrong(
    "pool-resource", "wait-names-the-event-one-past-the-runs-stream",
    "allocate, taking another stream's run, waits for events_[take.tag] where the run's stream's event is events_[take.tag - 1] (the tag is the place plus one)",
    "default output, or a race",
    "the wait names the stream after the one that freed the run: with two streams, the second stream taking the first's run waits for its own event (a wait for nothing: phase 1's first round and phase 3's take run unordered after the first stream's work, sums wrong by timing), and the first stream taking the second's run (phase 2's fourth block) reads past the end of events_ and waits for whatever lies there: an error that stops the program, or no order at all",
    "own",
    [("CHECK(cudaStreamWaitEvent(s, events_[take.tag - 1].second, 0));",
      "CHECK(cudaStreamWaitEvent(s, events_[take.tag].second, 0));")],
)
