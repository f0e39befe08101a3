# The wrong files of blind21's first half: for each, its exercise, slug,
# header (shows, mistake, why, source) and its one edit to the correct
# file: a list of (old, new) pairs, each old matching exactly once.
W = []

def wrong(ex, slug, shows, mistake, why, source, edits):
    W.append(dict(ex=ex, slug=slug, shows=shows, mistake=mistake, why=why, source=source, edits=edits))

# ---------------------------------------------------------------- block-pool
wrong('block-pool', 'give-back-recorded-without-its-stream',
      "default output, part 3, and the record: the request made while every block of the smallest class is held gets a block ('allocate while every block of 1000 bytes is in use: a block'), the words of some request are overwritten ('request N ... found K of its words overwritten'), and part 3b hands out blocks still in use ('N of them in use' > 0)",
      "deallocate records the block's event with cudaEventRecord(event_[idx]), the stream argument left to its default of 0, 'the event marks the moment of the give-back'",
      "the record goes to the legacy default stream, which main's non-blocking streams neither join nor hold back: the event completes as soon as the (idle) legacy stream reaches it, not after the work queued on the stream deallocate was given, so allocate hands a block out while its kernel still runs",
      "related: lattice/quda#1087 (cudaEventRecord given the explicit 0 stream while the work it should follow runs on another stream)",
      [("    if (cudaEventRecord(event_[idx], stream) != cudaSuccess) return false;",
        "    if (cudaEventRecord(event_[idx]) != cudaSuccess) return false;")])

wrong('block-pool', 'event-query-result-taken-as-a-bool',
      "default output, part 3: no given-back block ever comes back: 'no block of 1000 bytes came back within 2 s: ...' and exit 1 (and, had it gone on, blocks still in use handed out)",
      "allocate skips a pending block when !cudaEventQuery(...), reading the answer as 'true when the work is done', where cudaEventQuery returns cudaSuccess (0) when done and cudaErrorNotReady (non-zero) while the work runs",
      "the test is inverted: a block whose work is done (answer 0) is skipped for ever, and a block whose kernel still runs (answer cudaErrorNotReady) is handed out at once; every block given back in part 2 is done by part 3, so take() finds none in 2 s",
      "related: ROCm/hrx-system#377 (cuEventQuery's completion answer tested against the wrong value, so it reports the opposite of the truth)",
      [("            if (state_[idx] == kPending && cudaEventQuery(event_[idx]) != cudaSuccess) continue;",
        "            if (state_[idx] == kPending && !cudaEventQuery(event_[idx])) continue;  // not done yet")])

wrong('block-pool', 'stride-masked-with-not-align',
      "default output, part 1: 'blocks aligned to 256 bytes: no' (every stride is the size plus 255: 1255, 3255 and 10255 bytes by default); the record right, the rest of the output right",
      "init rounds each class size up with (b + kAlign - 1) & ~kAlign, the mask written as the complement of kAlign instead of kAlign - 1",
      "~kAlign clears bit 8 only, not the low eight bits: for the default sizes bit 8 of b + 255 is already 0, so the stride is b + 255, a multiple of nothing, and every block after a class's first starts off a 256-byte boundary",
      "own",
      [("        const size_t stride = (b + kAlign - 1) & ~(kAlign - 1);",
        "        const size_t stride = (b + kAlign - 1) & ~kAlign;")])

wrong('block-pool', 'full-class-spills-into-the-next',
      "default output, part 1: 'allocate(1000) with its class all handed out and larger ones free: a block' (nullptr wanted); that 3000-byte block, given back on a busy stream, may still be pending when its own class's requests come, so one of them spills into the largest class, which then runs one short: 'allocate(10000) returned nullptr while 1 blocks of 10000 bytes were free' (by timing); where the program goes on, the early request of part 3 gets a 3000-byte block ('... in use: a block')",
      "allocate, when the smallest class that holds the request has no block ready, goes on to the next class, 'a larger block holds the request just as well', the return nullptr after the class's walk left out",
      "the contract asks for a block of the smallest class that holds bytes and nullptr when that class has none now: spilling takes blocks from larger classes, which then run out for requests only they can serve",
      "own",
      [("        return nullptr;  // the smallest class that holds bytes has none now\n", "")])

# ------------------------------------------------------------ async-pipeline
wrong('async-pipeline', 'input-freed-before-the-scale',
      "the record (a use after free every iteration: scale reads the input block after its free in the same stream's order) and results by timing: the pool may give the freed block to the next iteration's input, on another stream, whose copy in overwrites it while scale reads it ('N of 12 results right' with N < 12 on some runs)",
      "submit queues cudaFreeAsync of the input block right after the copy in, 'the input is on the GPU now, the host buffer is what matters', before the scale that reads it",
      "a stream-ordered free makes the block free at that point of the stream: work queued after it on the same stream (scale) may not use it any more",
      "own",
      [("    scale<<<BLOCKS, THREADS, 0, s>>>(din, dout, n, 2.0f);\n    CHECK(cudaFreeAsync(din, s));\n",
        "    CHECK(cudaFreeAsync(din, s));\n    scale<<<BLOCKS, THREADS, 0, s>>>(din, dout, n, 2.0f);\n")])

wrong('async-pipeline', 'sums-placed-at-the-iteration-index',
      "default output: '12 of 12 results right, 0 of 12 checksums right' (or 1): each iteration's 64 partial sums land at sums() + it, over the sums of the iterations before and after it, and most of the slots main reads keep its 0xff bytes",
      "submit copies the partial sums back to sums_ + it, the iteration's index, instead of sums_ + it * BLOCKS",
      "the sums of iteration it belong at sums() + it * BLOCKS (BLOCKS long longs each); at sums_ + it the iterations' copies overlap, and which one wins a slot depends on the streams' timing",
      "own",
      [("    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, dsums,",
        "    CHECK(cudaMemcpyAsync(sums_ + it, dsums,")])

wrong('async-pipeline', 'submit-polls-the-stream-before-its-frees',
      "host waits: every submit spins on cudaStreamQuery until its iteration's work is over, so the host queues one iteration at a time and the streams never overlap; results and checksums right",
      "submit loops on cudaStreamQuery(s) until it stops answering cudaErrorNotReady before queueing the frees, 'the copies back must be over before the blocks go'",
      "a polling loop is a host wait like cudaStreamSynchronize: the exercise forbids any wait in submit; cudaFreeAsync on the stream is already ordered after the copies",
      "related: davisking/dlib#1514 (a busy loop until cudaStreamQuery returns cudaSuccess, used in place of a stream synchronisation)",
      [("    CHECK(cudaFreeAsync(dout, s));\n",
        "    while (cudaStreamQuery(s) == cudaErrorNotReady) {\n    }\n    CHECK(cudaFreeAsync(dout, s));\n")])

wrong('async-pipeline', 'checksum-grid-sized-to-cover-n',
      "default output and the record: checksum runs on 4096 blocks, so only the first 64 blocks' sums (the first 16384 values) are copied back: '0 of 12 checksums right'; blocks 64 to 4095 write their sums past the 512-byte block (out-of-bounds writes every iteration, over whatever the pool placed there, possibly another iteration's values: results by timing)",
      "submit launches checksum with (n + THREADS - 1) / THREADS blocks, the usual grid that covers n, instead of BLOCKS",
      "checksum writes one partial sum per block and its buffer holds BLOCKS of them; the grid-stride loop already covers n with BLOCKS blocks",
      "related: CoffeeBeforeArch/cuda_programming#9 (the launch of a reduction's second step sized by the wrong count of partial sums)",
      [("    checksum<<<BLOCKS, THREADS, 0, s>>>(dout, n, dsums);",
        "    checksum<<<(n + THREADS - 1) / THREADS, THREADS, 0, s>>>(dout, n, dsums);")])

# --------------------------------------------------------------- pool-reuse
wrong('pool-reuse', 'attr-read-into-a-32-bit-local',
      "other arguments only: below 4 GiB the low 32 bits are the whole value; with a phase of 4 GiB or more (e.g. pool_reuse 6 8 512) the wide peak reads as 0: 'measured wide: one round reserves 0 MiB', 'wide: 0 of 6 rounds found their 4096 MiB already reserved' (5 wanted), the report's figures 0; and every read lets the driver write 8 bytes into a 4-byte local (a stack overwrite)",
      "attr reads the attribute into an unsigned int, 'a few MiB fit in 32 bits', where the driver writes a 64-bit value",
      "the marks, the threshold and the current figures are uint64_t attributes: the driver writes eight bytes at the pointer, past the local's four, and the value kept loses its high bits",
      "NVIDIA/cuda-python#1272 (cuMemPoolGetAttribute given a 32-bit value where the driver writes 64 bits: an invalid memory access)",
      [("    size_t v = 0;  // 64 bits wide on every platform the course runs on\n",
        "    unsigned int v = 0;  // a few MiB fit in 32 bits\n")])

wrong('pool-reuse', 'phase-entry-trims-to-nothing',
      "default output: 'entering narrow: reserved 0 MiB, ...' and 'narrow: 5 of 6 rounds found their 32 MiB already reserved' (6 wanted): the narrow phase's first round asks the driver again; the wide phase right (the pool holds nothing when it starts anyway)",
      "enter_phase trims the pool to 0, 'give everything back at the phase boundary', instead of to the phase's peak",
      "what the phase's rounds need, up to its threshold, should stay in the pool across the boundary; trimming to 0 hands the narrow phase's 32 MiB back to the driver only for its first round to take it again",
      "own",
      [("    CHECK(cudaMemPoolTrimTo(pool, peak));", "    CHECK(cudaMemPoolTrimTo(pool, 0));")])

wrong('pool-reuse', 'peak-measured-without-restarting-the-marks',
      "default output: 'measured narrow: one round reserves 128 MiB' (32 wanted): the reserved mark still holds the wide round's peak; the narrow phase then keeps 128 MiB ('entering narrow: reserved 128 MiB', 'threshold 128 MiB' in its report)",
      "measure_peak empties the pool but reads the reserved high-water mark without restarting it first, 'the marks start at 0 when the pool is made'",
      "a high-water mark counts from its last reset: the second measurement reads the larger of the two rounds, not its own",
      "own",
      [("    CHECK(restart_marks(pool));\n    if (run_round(pool, s, ph, 0)) return 1;\n",
        "    if (run_round(pool, s, ph, 0)) return 1;\n")])

wrong('pool-reuse', 'pool-taken-from-the-devices-default',
      "default output: the phases' lines most likely right, but the program's 'pool' is the device's default pool, which it does not own: its release threshold and marks are changed for every user of the device, and main's cudaMemPoolDestroy of it fails at the end ('pool_reuse.cu:NNN: invalid argument', exit 1)",
      "make_pool takes the device's default pool with cudaDeviceGetDefaultMemPool, 'a pool of the device's own memory', instead of creating one with the props it filled",
      "the exercise wants a pool apart from the default pool; the default pool is shared with everything else on the device and cannot be destroyed",
      "related: NVIDIA/cuda-python#771 (a library raising the release threshold of the device's shared default pool for its own use)",
      [("    cudaError_t e = cudaMemPoolCreate(pool, &props);",
        "    cudaError_t e = cudaDeviceGetDefaultMemPool(pool, device);")])

# ------------------------------------------------------------- cross-stream
wrong('cross-stream', 'second-half-offset-counted-in-bytes',
      "the record and default output: half 1's square reads n / 2 floats from values + 2 n, one whole buffer past the values' end: out-of-bounds reads on work_[1] every chunk; half 1's sums wrong ('0 of 8 chunks right'), or an illegal address where nothing is mapped there",
      "stage_work points half h at ch.values + h * m * sizeof(float), the offset counted in bytes, on a float pointer",
      "pointer arithmetic on a float* already scales by sizeof(float): the offset is h * m elements",
      "own",
      [("    square<<<BLOCKS, THREADS, 0, w>>>(ch.values + (size_t)half * m, ch.squares[half], m);",
        "    square<<<BLOCKS, THREADS, 0, w>>>(ch.values + (size_t)half * m * sizeof(float), ch.squares[half], m);")])

wrong('cross-stream', 'copy-waits-on-the-last-squared-event',
      "a race and the record: copy_ waits only for half 1's square, so it copies the partial sums (allocated on reduce_, not ordered for copy_) before the sums have written them and frees them while sum may still write: an unordered use and free every chunk; 'N of 8 chunks right' with N < 8 on most runs (sum spins 0.1 ms first)",
      "stage_copy waits for squared_[HALVES - 1], 'the last stage before the copy', instead of reduced_",
      "the partial sums are written by reduce_; only an event recorded on reduce_ after the sums orders copy_ after them",
      "own",
      [("    CHECK(cudaStreamWaitEvent(copy_, reduced_, 0));",
        "    CHECK(cudaStreamWaitEvent(copy_, squared_[HALVES - 1], 0));")])

wrong('cross-stream', 'half-sums-placed-one-float-apart',
      "default output: half 1's sums are written at partial + 1, over half 0's from the second on, and the second half of the buffer is never written: every chunk's two sums wrong, '0 of 8 chunks right'",
      "stage_reduce passes ch.partial + h to the sum of half h, the half's index, instead of ch.partial + h * BLOCKS",
      "each half's sum writes BLOCKS partial sums: the halves' sums are BLOCKS floats apart",
      "own",
      [("        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);",
        "        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h);")])

wrong('cross-stream', 'values-freed-before-the-second-square',
      "the record (a use after free on work_[1] every chunk: half 1's square reads the values after their free in its own stream's order) and half 1's sums by timing: the pool may give the block to the next chunk's values on load_ (behind a dependency it inserts), whose generate overwrites it while half 1 still reads",
      "stage_work, for the last half, waits for half 0's squared event and frees the values first, then launches its own square, 'the free goes where both halves are known'",
      "the free must come after both reads in the freeing stream's order: on work_[1] that means after its own square too",
      "own",
      [("    square<<<BLOCKS, THREADS, 0, w>>>(ch.values + (size_t)half * m, ch.squares[half], m);\n    CHECK(cudaGetLastError());\n    CHECK(cudaEventRecord(squared_[half], w));\n    if (half == HALVES - 1) {\n        for (int h = 0; h < HALVES - 1; h++) CHECK(cudaStreamWaitEvent(w, squared_[h], 0));\n        CHECK(cudaFreeAsync(ch.values, w));\n        ch.values = nullptr;\n    }\n",
        "    float* values = ch.values;\n    if (half == HALVES - 1) {\n        for (int h = 0; h < HALVES - 1; h++) CHECK(cudaStreamWaitEvent(w, squared_[h], 0));\n        CHECK(cudaFreeAsync(ch.values, w));\n        ch.values = nullptr;\n    }\n    square<<<BLOCKS, THREADS, 0, w>>>(values + (size_t)half * m, ch.squares[half], m);\n    CHECK(cudaGetLastError());\n    CHECK(cudaEventRecord(squared_[half], w));\n")])

# -------------------------------------------------------------- strict-pool
wrong('strict-pool', 'hand-waits-on-the-host-for-the-event',
      "host waits and default output: every hand blocks the host until from's work is done (two host waits a round), and since no stream ever waits for another, the pool (opportunistic reuse off) never gives B the block A freed: '0 of 6 rounds: B reused the block A freed', 'pool reserved at most 64 MiB for blocks of 32 MiB'; the sums right (the host held everything back)",
      "hand records the event on from and then calls cudaEventSynchronize(e), 'wait until from is done, then to may go on', instead of cudaStreamWaitEvent(to, e, 0)",
      "cudaEventSynchronize makes the host wait, not the stream: the exercise forbids host waits in hand, and with opportunistic reuse off the pool passes a block between streams only along a stream's wait on an event recorded after the free",
      "related: ml-explore/mlx#4400 (a GPU-to-GPU dependency between two streams served by a host wait instead of a stream waiting on an event)",
      [("    keep(cudaStreamWaitEvent(to, e, 0));", "    keep(cudaEventSynchronize(e));  // to goes on once from is done")])

wrong('strict-pool', 'event-recorded-on-the-receiving-stream',
      "default output: to waits for its own record, nothing of from's: B never gets A's block ('0 of 6 rounds: B reused the block A freed') and the pool grows ('pool reserved at most 64 MiB for blocks of 32 MiB'); with LATE 1 B adds the round's word before A's copy wrote it (sums wrong)",
      "hand records the event on to, 'the receiving stream marks where it picks the block up', and queues to's wait on it",
      "the record must be made on from, after what from queued, for the wait to order to after it",
      "own",
      [("    if (keep(cudaEventRecord(e, from))) return;", "    if (keep(cudaEventRecord(e, to))) return;")])

wrong('strict-pool', 'put-frees-on-the-legacy-stream',
      "default output and the record: every block is freed on the legacy default stream, which the non-blocking streams are not ordered with: a free not ordered after the fill at every put, and no stream ever waits for that free, so (opportunistic reuse off) no block is reused: '0 of 6 rounds: B reused the block A freed', and the pool reserves a new block at every get (up to 384 MiB for blocks of 32 MiB)",
      "put gives the block back with cudaFreeAsync(p, 0), 'stream 0 is ordered with everything'",
      "stream 0 here is the legacy default stream, which non-blocking streams neither wait for nor hold back; the free must go on s, after the work that uses the block",
      "own",
      [("    keep(cudaFreeAsync(p, s));", "    keep(cudaFreeAsync(p, 0));")])

wrong('strict-pool', 'reserved-high-asked-as-current',
      "default output: 'pool reserved at most 0 MiB for blocks of 32 MiB': by the time main asks, the streams are synchronised and the pool (threshold 0) has given everything back; the rounds right",
      "reserved_high asks cudaMemPoolAttrReservedMemCurrent, 'what the pool reserves'",
      "the most the pool reserved at once is the high-water mark, cudaMemPoolAttrReservedMemHigh; the current figure is what it holds now",
      "own",
      [("cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v)", "cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &v)")])

# ------------------------------------------------------------- vmm-growable
wrong('vmm-growable', 'old-range-freed-after-its-size-was-updated',
      "default output: the move's cuMemAddressFree of the old 64 MiB range is asked for 100 MiB and refused: 'grow to 104857600 bytes failed' (and the teardown after it fails too)",
      "move sets reserved_ = want before it frees the old range with cuMemAddressFree(base_, reserved_), the two lines in the wrong order",
      "a range is freed with the size it was reserved with; reserved_ already names the new range's size",
      "own",
      [("        CU(cuMemAddressFree(base_, reserved_));\n        base_ = fresh;\n        reserved_ = want;\n",
        "        reserved_ = want;\n        CU(cuMemAddressFree(base_, reserved_));\n        base_ = fresh;\n")])

wrong('vmm-growable', 'moved-chunks-left-without-access',
      "default output: after the move the old chunk is mapped at its new addresses without access: the fills at the new addresses fault, 'a kernel failed'",
      "move maps each old chunk into the new range but does not open it, 'its access was set when it was first mapped'",
      "access is a property of a mapping (a range of addresses), not of the physical memory: every new mapping needs its own cuMemSetAccess",
      "own",
      [("            done = off + c.bytes;\n            if (cuMemSetAccess(fresh + off, c.bytes, &access_, 1) != CUDA_SUCCESS) {\n                ok = false;\n                break;\n            }\n",
        "            done = off + c.bytes;\n")])

wrong('vmm-growable', 'new-chunk-sized-to-the-whole-buffer',
      "default output: grow(100 MiB) moves into a 100 MiB range and then maps a new chunk of 100 MiB at offset 2 MiB, past the range's end: refused, 'grow to 104857600 bytes failed'; inside a reservation large enough (e.g. growable 10 64) it maps more than it counts",
      "grow makes the new chunk want bytes long, 'the buffer's new size', instead of want - mapped_",
      "the chunk covers only the bytes from mapped_ to want; what is below mapped_ is mapped already",
      "own",
      [("        Chunk c{0, want - mapped_};", "        Chunk c{0, want};")])

wrong('vmm-growable', 'release-frees-only-the-mapped-bytes',
      "other arguments only: where the buffer ends smaller than its reservation (e.g. growable 10 64), cuMemAddressFree is asked for the mapped 10 MiB of a 64 MiB range and refused: 'release: failed', 'every reservation given back: no'; the default run (which ends in a range of exactly what is mapped) right",
      "release frees the addresses with cuMemAddressFree(base_, mapped_), 'what the buffer uses'",
      "a range is freed whole, with the size it was reserved with (reserved_), however much of it is mapped",
      "own",
      [("ok = cuMemAddressFree(base_, reserved_) == CUDA_SUCCESS && ok;", "ok = cuMemAddressFree(base_, mapped_) == CUDA_SUCCESS && ok;")])

# ------------------------------------------------------------ pool-resource
wrong('pool-resource', 'other-streams-block-taken-without-waiting',
      "a race and the record: a stream that takes another stream's free block (the rest of a chunk another stream asked for, or a block another stream freed) starts at once, with no wait for that stream's work on it: unordered uses in phase 1 (a fill racing the upstream's clear or the other stream's sum), phase 3 and, with a third stream, phases 5 to 8; sums wrong by timing",
      "allocate takes the best fit among the other streams' free blocks without the cudaStreamWaitEvent, 'the block is free, the pool knows it'",
      "a block is free only in the order of the stream that freed it; another stream must wait for that stream's event first",
      "own",
      [("        if (pick >= 0 && own < 0) {\n            // Another stream's block: s follows that stream's work on it.\n            CHECK(cudaStreamWaitEvent(s, event_of(free_[pick].stream), 0));\n        }\n", "")])

wrong('pool-resource', 'free-not-recorded-on-the-freeing-stream',
      "a race and the record: the freeing stream's event keeps its last record (from an earlier free or a new chunk), so another stream taking the block waits for less than the work on it: in phase 2 stream 0 takes stream 1's block behind a wait on an event never recorded (no wait at all), in phase 3 stream 1 takes stream 0's 16 MiB behind the record made at phase 1's new chunk: unordered uses against the other stream's last sums (and more in phases 5 to 8 with a third stream); sums wrong by timing",
      "deallocate tags the block with the freeing stream but does not record that stream's event, 'the event was recorded when the stream got its memory'",
      "a wait takes the event's latest record: it must be made at the free, after the work that used the block",
      "own",
      [("        const cudaStream_t s = stream.get();\n        CHECK(cudaEventRecord(event_of(s), s));\n        Free g{", "        const cudaStream_t s = stream.get();\n        Free g{")])

wrong('pool-resource', 'exact-fit-passed-over',
      "default output: a free block of exactly the request's size is never taken: in phase 1's second round the two 4 MiB blocks the streams gave back are passed over and stream 0 takes a second chunk: by my trace '1. 8 rounds side by side on 2 streams: 2 chunk(s) taken' (1 wanted), and later phases take more than they need (a 16 MiB free block passed over for a 16 MiB request); 'upstream: N chunks taken' above 3",
      "allocate skips free blocks with f.bytes <= need, the comparison written the other way round from 'at least need'",
      "a block of exactly the rounded request fits: the test must skip only blocks smaller than need",
      "own",
      [("            if (f.bytes < need) continue;", "            if (f.bytes <= need) continue;")])

wrong('pool-resource', 'destructor-leaves-the-events',
      "the record only: each pool's events (one per stream that freed or took a new chunk, two or three a pool) are never destroyed; the output right",
      "the destructor gives the chunks back and clears the list of events without cudaEventDestroy, 'the vector frees its entries'",
      "every event the pool made must go back with the pool: clearing the vector only forgets the handles",
      "related: llnl/camp#71 (event wrappers that create CUDA events and never free them)",
      [("        for (const auto& e : events_) cudaEventDestroy(e.second);\n", "")])
