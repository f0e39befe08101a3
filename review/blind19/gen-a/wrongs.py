# The wrong files of blind19's first half: exercise, slug, where it shows,
# the mistake, why it is wrong, source, and the edits to the correct file.
WRONGS = []
def W(ex, slug, where, mistake, why, source, *edits):
    WRONGS.append(dict(ex=ex, slug=slug, where=where, mistake=mistake, why=why, source=source, edits=list(edits)))

# ---- async-pipeline
W("async-pipeline", "drain-event-recorded-on-the-legacy-stream",
  "default output, by timing: drain returns at once; the last iterations are read before they are done ('N of 12 results right' with N < 12, the 0xff bytes main wrote still there), and the record shows the host reading while copies run",
  "drain records each stream's event with cudaEventRecord(done[i], 0), 'the default stream waits for every other stream', and synchronises those events",
  "main made its streams with cudaStreamNonBlocking, so the legacy default stream does not join them: an event recorded on stream 0 captures nothing of the pipeline's work and completes at once; drain waits for nothing",
  "lupinemachines/lupine#569 (an event recorded on the legacy default stream is ordered after the BLOCKING streams' work only)",
  ("CHECK(cudaEventRecord(done[i], streams_[i]));", "CHECK(cudaEventRecord(done[i], 0));"))
W("async-pipeline", "sums-room-counted-in-floats",
  "the record (out-of-bounds writes by checksum and reads by the copy back, every iteration) and sums by chance: 256 bytes past the output block, over whatever the pool placed after it",
  "submit sizes the output block as head + BLOCKS * sizeof(float), 'BLOCKS partial sums', where the partial sums are long longs (512 bytes, not 256)",
  "checksum writes BLOCKS long longs from res + head; the block ends 256 bytes into them, so half of the partial sums live outside the allocation, where another iteration's block (on another stream) may be",
  "own",
  ("head + BLOCKS * sizeof(long long), s));", "head + BLOCKS * sizeof(float), s));"))
W("async-pipeline", "host-memory-given-back-with-free",
  "default output: the destructor hands the pinned allocation to the C library's free(); the program dies there (glibc's 'free(): invalid pointer' abort, or a segmentation fault reading the chunk header before the mapping) after the results line and before 'host buffers given back'; where it survived, the memory would stay page-locked: 'host buffers given back: no'",
  "the destructor gives the host's one allocation back with free(host_), as the skeleton's calloc'd buffers were, keeping the cudaMallocHost on the way in",
  "memory from cudaMallocHost belongs to the CUDA runtime (mapped and page-locked by the driver), not to malloc; it must go back through cudaFreeHost. free() on it is undefined behaviour, in practice an abort",
  'wilicc/gpu-burn#17 (page-locked host memory from the CUDA allocator given back with free() instead of the matching CUDA call)',
  ("    if (host_ != nullptr) cudaFreeHost(host_);", "    if (host_ != nullptr) free(host_);"))
W("async-pipeline", "output-block-allocated-on-the-first-stream",
  "a race and the record: on every stream but the first, the output block is allocated in streams_[0]'s order and used in another's: the pool may hand it memory that streams_[0]'s previous iteration freed while that iteration's copies back still run; scaled values or sums overwritten by chance, and an unordered use on every run with more than one stream",
  "submit allocates the output block with cudaMallocAsync(..., streams_[0]), 'allocate everything on one stream, use it anywhere', the slice on the iteration's stream as before",
  "a stream-ordered allocation is only valid in the order of the stream it was made on; using it on stream s needs s to wait for streams_[0] (an event), which the pipeline never queues, and the free on s is not ordered after the allocation either",
  "rapidsai/rmm#2156 (a stream-ordered allocation used and freed on another stream with nothing ordering the two: compute-sanitizer's stream-ordered race)",
  ("CHECK(cudaMallocAsync(reinterpret_cast<void**>(&res), head + BLOCKS * sizeof(long long), s));",
   "CHECK(cudaMallocAsync(reinterpret_cast<void**>(&res), head + BLOCKS * sizeof(long long), streams_[0]));"))

# ---- pool-reuse
W("pool-reuse", "marks-restarted-before-the-trim",
  "default output: the narrow report still counts the wide phase's memory: 'phase narrow: used high 32 MiB, reserved high 128 MiB, threshold 32 MiB' (reserved high 32 wanted); the counts of reused rounds right",
  "enter_phase restarts the two marks first, then writes the threshold and trims, 'a new phase starts by restarting its marks'",
  "a mark written 0 restarts from what the pool holds at that moment: entering narrow the pool still keeps the wide phase's 128 MiB under the old threshold, so the reserved mark starts at 128 MiB and the trim that follows cannot lower it",
  "own",
  ('''    CHECK(set64(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
    CHECK(restart(pool));''', '''    CHECK(restart(pool));
    CHECK(set64(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));'''))
W("pool-reuse", "held-asks-the-release-threshold",
  "default output: 'wide: 6 of 6 rounds found their 128 MiB already reserved' (5 wanted: entering wide the pool holds nothing, so the first round asks the driver); with TRIM (e.g. pool_reuse 6 4 32 3) the trimmed round is counted as well",
  "held compares the pool's release threshold with the need, 'the threshold is what the pool keeps'",
  "the threshold is what the pool is ALLOWED to keep across a synchronisation, not what it reserves now: right after a phase starts, or after a trim, the pool holds less than its threshold; what it holds is cudaMemPoolAttrReservedMemCurrent",
  "own",
  ("    return attr(pool, cudaMemPoolAttrReservedMemCurrent) >= attr(pool, cudaMemPoolAttrUsedMemCurrent) + need;",
   "    return attr(pool, cudaMemPoolAttrReleaseThreshold) >= attr(pool, cudaMemPoolAttrUsedMemCurrent) + need;"))
W("pool-reuse", "marks-restarted-to-what-the-pool-holds",
  "default output: entering narrow the pool holds 32 MiB, the driver refuses a mark of 32 MiB (invalid argument) and the program stops at enter_phase ('pool_reuse.cu:NN: invalid argument', exit status 1) before the narrow phase runs; measure_peak and the wide phase pass by chance, since the pool holds 0 there",
  "restart writes what the pool holds now (ReservedMemCurrent, UsedMemCurrent) into the two high-water marks, 'the mark restarts from the pool's current state'",
  "a high-water mark can only be reset by writing 0 (the driver then restarts it from the current figure itself); any other value is an invalid argument",
  "own",
  ('''    cudaError_t e = set64(pool, cudaMemPoolAttrUsedMemHigh, 0);
    if (e != cudaSuccess) return e;
    return set64(pool, cudaMemPoolAttrReservedMemHigh, 0);''',
   '''    cudaError_t e = set64(pool, cudaMemPoolAttrUsedMemHigh, attr(pool, cudaMemPoolAttrUsedMemCurrent));
    if (e != cudaSuccess) return e;
    return set64(pool, cudaMemPoolAttrReservedMemHigh, attr(pool, cudaMemPoolAttrReservedMemCurrent));'''))
W("pool-reuse", "peak-measured-with-the-used-mark",
  "other arguments only: with the default 32 MiB buffers the pool reserves exactly what is used; with a MIB the pool rounds up (1 or 3, into its 2 MiB units) the threshold is below what a round reserves, the pool gives its last chunk back at every synchronisation: e.g. pool_reuse 6 4 1: 'narrow: 0 of 6 rounds found their 1 MiB already reserved' (5 or 6 wanted) and 'measured narrow: one round reserves 1 MiB'",
  "measure_peak reads cudaMemPoolAttrUsedMemHigh, 'what the round's buffers take', where the pool's reservation is what a threshold must cover",
  "the pool reserves from the driver in its own granularity, so a round can reserve more than its buffers use; a threshold of the used figure releases the rest, and with it the whole reservation, at the next synchronisation",
  "own",
  ("    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);", "    *peak = attr(pool, cudaMemPoolAttrUsedMemHigh);"))

# ---- cross-stream
W("cross-stream", "values-freed-without-waiting-for-half-1",
  "a race and the record: the values are freed in work_[0]'s order only, which does not hold half 1's square on work_[1]; an unordered free (work_[0] against work_[1]) every chunk, and half 1's sums wrong on runs where the pool hands the block to the next chunk's generate before half 1's square has read it",
  "the last half's stage frees the values on work_[0] without first making work_[0] wait for the last half's squared event, 'work_[0] read them first, so it is done with them first'",
  "two readers on two streams: a free in one stream's order is only safe once that order includes the other reader too; work_[0] finishing its own square says nothing about work_[1]'s",
  "own",
  ("""        // Every half's square is queued now. work_[0] read the values
        // first; after a wait for the last half's square its order holds
        // both reads (half 0's by being its own), so the values go there.
        for (int h = 1; h < HALVES; h++) CHECK(cudaStreamWaitEvent(work_[0], squared_[h], 0));
""", """        // Every half's square is queued now. work_[0] read the values
        // first, so it is done with them first: they go there.
"""))
W("cross-stream", "loaded-recorded-before-generate",
  "a race and the record: the loaded event is recorded before generate is queued, so the work streams wait only for the values' allocation: every chunk's squares may read the values before (or while) generate writes them; sums wrong on the runs where square starts first (generate spins 0.1 ms, so often), an unordered use on both work streams every chunk",
  "stage_load records loaded_ right after the cudaMallocAsync, 'the values exist once they are allocated', and launches generate after the record",
  "an event captures the work queued on its stream BEFORE the record; a wait on it orders nothing that is queued after, here the kernel that writes the values",
  'own',
  ('''    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(loaded_, load_));''', '''    CHECK(cudaEventRecord(loaded_, load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaGetLastError());'''))
W("cross-stream", "partial-sums-allocated-without-sizeof",
  "the record (out-of-bounds writes by both sums on reduce_ and reads by the copy on copy_, every chunk) and sums by chance: the block holds 16 bytes, HALVES * BLOCKS = 16 floats need 64; what lies after it in the pool (another chunk's buffer) is overwritten",
  "stage_reduce asks cudaMallocAsync for HALVES * BLOCKS, the count of partial sums, forgetting that the size is in bytes",
  "cudaMallocAsync takes bytes; 16 bytes hold 4 floats, so 12 of the 16 partial sums are written and copied outside the allocation",
  "own",
  ("CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), (size_t)HALVES * BLOCKS * sizeof(float), reduce_));",
   "CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), (size_t)HALVES * BLOCKS, reduce_));"))
W("cross-stream", "sums-brought-back-with-cudaMemcpy",
  "default output, host waits and the record: every chunk's copy is a cudaMemcpy, a wait on the host inside a stage (the stages of later chunks are queued only after it returns, so the pipeline barely overlaps), and it runs on the legacy default stream, which the non-blocking streams do not join: copy_'s wait for reduced_ does not hold it, so it reads the partial sums right away, before reduce_ has summed them (reduce_ is still behind the squares): the sums wrong on nearly every chunk ('0 of 8 chunks right' or close), an unordered read of reduce_'s block",
  "stage_copy brings the partial sums back with cudaMemcpy (copy_ still waits for reduced_ first), 'the copy stream has waited, a plain copy is fine'",
  "cudaMemcpy takes no stream: it is ordered on the legacy default stream and blocks the host until done; the exercise forbids host waits in a stage, and the copy_'s wait orders only what is queued on copy_",
  'OpenPPL/ppl.cv#135 (cudaMemcpy is not ordered with cudaStreamNonBlocking streams: wrong results)',
  ("    CHECK(cudaMemcpyAsync(ch.result, ch.partial, (size_t)HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));",
   "    CHECK(cudaMemcpy(ch.result, ch.partial, (size_t)HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost));"))

# ---- strict-pool
W("strict-pool", "wait-queued-on-the-from-stream",
  "default output: B never waits for A, so with the crossing policies off it never gets A's block: '0 of 6 rounds: B reused the block A freed' and 'pool reserved at most 64 MiB for blocks of 32 MiB' (32 wanted); with LATE 1 B's add may read the word before A's copy: the sums miss r + 1",
  "hand queues the wait on from, cudaStreamWaitEvent(from, handed_, 0), 'from must wait until its work is recorded', instead of on to",
  "cudaStreamWaitEvent's first argument is the stream that waits; from waiting for its own record orders nothing, and to is left unordered",
  "own",
  ("    keep(cudaStreamWaitEvent(to, handed_, 0));", "    keep(cudaStreamWaitEvent(from, handed_, 0));"))
W("strict-pool", "wait-queued-before-the-record",
  "default output: every wait takes the event's previous record (the other direction's hand, on the waiting stream itself; round 0's none at all), so B never follows A: '0 of 6 rounds: B reused the block A freed', 'pool reserved at most 64 MiB'; with LATE 1 the sums miss the words as well",
  "hand queues to's wait on the event first and records it on from after, 'set up the wait, then fire the event'",
  "a wait takes the record the event holds when the wait is queued (or nothing, if never recorded); a record made afterwards is not seen by it, and with one event shared by both directions the record it does see was made on to",
  'sgl-project/sglang#14214 (a wait queued before the record it means to wait for: plain CUDA events do not allow it)',
  ('''    keep(cudaEventRecord(handed_, from));
    keep(cudaStreamWaitEvent(to, handed_, 0));''', '''    keep(cudaStreamWaitEvent(to, handed_, 0));
    keep(cudaEventRecord(handed_, from));'''))
W("strict-pool", "following-event-dependencies-turned-off-too",
  "default output: B waits for A's event, but the pool may not use that wait either: '0 of 6 rounds: B reused the block A freed' and 'pool reserved at most 64 MiB for blocks of 32 MiB'; 'pool: opportunistic 0, internal dependencies 0' right, the sums right",
  "the constructor writes 0 to all three reuse policies, cudaMemPoolReuseFollowEventDependencies included, 'a strict pool allows no reuse of its own'",
  "following event dependencies is the one policy that lets a block cross streams where the PROGRAM ordered them; with it off a block freed on A can never be given to B, whatever B waits for",
  'own',
  ("    set_policy(cudaMemPoolReuseFollowEventDependencies, 1);", "    set_policy(cudaMemPoolReuseFollowEventDependencies, 0);"))
W("strict-pool", "get-allocates-from-the-current-pool",
  "default output: the blocks come from the device's current pool (the default pool, all policies on), not this one: 'pool reserved at most 0 MiB for blocks of 32 MiB'; 'B reused' may read 6 of 6 even so, as the default pool follows the same event",
  "get calls cudaMallocAsync(&p, bytes, s), 'the pool was made on this device, so the device's allocations come from it'",
  "cudaMemPoolCreate does not make the pool the device's current pool; cudaMallocAsync allocates from the current pool (the default one, whose policies the program did not set); this pool needs cudaMallocFromPoolAsync (or cudaDeviceSetMemPool, which would change a pool the program does not own)",
  "own",
  ("    cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_, s);", "    cudaError_t e = cudaMallocAsync(&p, bytes, s);"))

# ---- block-pool
W("block-pool", "class-found-with-upper-bound",
  "default output, part 1: a request of exactly a class's size goes to the class above: the last request of 1000 bytes takes a 3000-byte block, 'allocate(1000) with its class all handed out and larger ones free: a block' (its class still has a block), and the class above runs short: part 1 stops with 'allocate(N) returned nullptr while ... blocks of ... bytes were free' (for the largest class at the latest: allocate(10000) finds no class at all)",
  "allocate picks the class with std::upper_bound, 'the first class above the request', where lower_bound is the first class that holds it",
  "upper_bound skips a class whose size equals the request; the smallest class that holds bytes is the first with size >= bytes (lower_bound); the exact sizes are the ones that differ",
  "own",
  ("    const int c = (int)(std::lower_bound(classes_.begin(), classes_.end(), bytes) - classes_.begin());",
   "    const int c = (int)(std::upper_bound(classes_.begin(), classes_.end(), bytes) - classes_.begin());"))
W("block-pool", "not-ready-answer-cleared-from-the-last-error",
  "default output, part 3d: 'a launch that failed before allocate() is still the last error after it: no, allocate() took it away' (the idle stack of the smallest class is empty there, so allocate asks events); everything else right",
  "allocate calls cudaGetLastError() after each cudaEventQuery, 'so that the not-ready answer does not linger as an error'",
  "cudaErrorNotReady is an answer, not an error the runtime keeps; cudaGetLastError returns and CLEARS the caller's own last error (here a failed launch the caller has not checked yet)",
  "microsoft/onnxruntime#8358 (the idiom of clearing the last error after a not-ready event query, needed on HIP; on CUDA it wipes the caller's own error)",
  ('''            // A question, not a wait; "not ready" is an answer the runtime
            // does not keep as the last error.
            if (cudaEventQuery(blocks_[*it].ev) == cudaSuccess) {''',
   '''            // A question, not a wait; clear the "not ready" it may leave
            // behind as the last error.
            const cudaError_t answer = cudaEventQuery(blocks_[*it].ev);
            cudaGetLastError();
            if (answer == cudaSuccess) {'''))
W("block-pool", "block-found-by-the-address-at-or-below",
  "default output, part 2: 'pointer 256 bytes into a block refused: no' (the last block is taken as given back through an inner pointer), then the real give-back of that block is refused: 'gave every block back: no, a deallocate refused a block the pool had handed out'",
  "deallocate looks the pointer up with upper_bound and one step back, 'the block that holds this address', and gives that block back (pointers past the pool's end are still refused)",
  "the pool must refuse any pointer that is not the START of one of its blocks; a pointer into a block is a bug of the caller's, and accepting it gives back a block its owner still holds",
  "own",
  ('''    auto found = index_.find(static_cast<const char*>(block));
    if (found == index_.end()) return false;''',
   '''    const char* at = static_cast<const char*>(block);
    auto found = index_.upper_bound(at);
    if (found == index_.begin()) return false;
    --found;
    if (at >= blocks_[found->second].start + classes_[blocks_[found->second].cls]) return false;'''))
W("block-pool", "stride-rounds-an-exact-multiple-up-a-unit",
  "other arguments only (the record: the cudaMalloc's size): a class whose size is a multiple of 256 gets a stride 256 bytes larger, e.g. block_pool 8 192 256 512 1024: a 21 KiB region where 14 KiB is the most allowed; the blocks still aligned and apart, and on the default classes (1000, 3000, 10000, none a multiple) all right",
  "stride rounds up as (bytes + kAlign) / kAlign * kAlign, 'the next boundary above the size'",
  "rounding up to a multiple must leave an exact multiple as it is: (bytes + kAlign - 1) / kAlign * kAlign; the pool's one allocation must be no more than its blocks' sum",
  "own",
  ("    static size_t stride(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }",
   "    static size_t stride(size_t bytes) { return (bytes + kAlign) / kAlign * kAlign; }"))

# ---- vmm-growable
W("vmm-growable", "extension-kept-wherever-the-driver-put-it",
  "other arguments only (TAKEN 1, e.g. growable 100 64 0 1, or wherever the driver places the extension elsewhere): the extension granted somewhere else is counted as if it followed the reservation; grow then maps the new 36 MiB at base + 64 MiB, addresses the buffer does not own: inside the blocker's range main reserved there (the map may well succeed and the output read right: 'moved to a larger reservation: no' where a move was wanted, and the buffer's memory lies in someone else's range), or, where nothing is reserved there, the map is refused: 'grow to 104857600 bytes failed'",
  "extend keeps the range cuMemAddressReserve returned for the extension without comparing it with the address asked for, 'the address argument is where the range goes'",
  "the address given to cuMemAddressReserve is only a hint: the driver may place the range anywhere; only a range that starts exactly at the reservation's end extends it, anything else must be freed and the buffer moved",
  'NVIDIA/DALI#3128 (the address given to cuMemAddressReserve is a hint the driver need not honour)',
  ('''            if (got == next) {
                ranges_.push_back({got, more});
                reserved_ += more;
                return true;
            }
            cuMemAddressFree(got, more);''', '''            ranges_.push_back({got, more});
            reserved_ += more;
            return true;'''))
W("vmm-growable", "move-unmaps-before-the-sync",
  "a race and the record, other arguments only (a move: TAKEN 1, or wherever the driver does not grant the addresses after the reservation): the old chunks are unmapped while the caller's fill on its own stream may still write them: an illegal address ('a kernel failed') on runs where the fill is late, or the write lost; the output right when the fill has ended first",
  "extend unmaps the old chunks right after mapping them at the new range and synchronises the context after, 'the memory is mapped at the new addresses, the old ones are not needed'",
  "work queued before the move still uses the OLD addresses; unmapping them before that work ends pulls the memory from under it; the synchronisation must come before the unmap",
  "own",
  ('''        // Work queued before (on any stream) may still use the old
        // addresses: it must end before they go.
        CU(cuCtxSynchronize());
        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }''', '''        // The memory is mapped at the new addresses now: the old
        // mappings go, then work queued before is waited for.
        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        CU(cuCtxSynchronize());'''))
W("vmm-growable", "release-frees-the-ranges-before-unmapping",
  "default output: 'release: failed' (cuMemAddressFree refuses addresses still mapped); then 'every reservation given back: no', since the chunks are unmapped after but the ranges stay reserved",
  "release frees the reservations first and unmaps and releases the chunks after, 'the addresses first, then what was behind them'",
  "the driver does not give back a range while memory is mapped in it: unmap every mapping, then release the handles (or the other way round), and free the addresses last",
  'ROCm/ROCR-Runtime#257 (an address range still mapped is refused by the address free)',
  ('''        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
        chunks_.clear();
        for (const Range& r : ranges_) ok = cuMemAddressFree(r.addr, r.bytes) == CUDA_SUCCESS && ok;
        ranges_.clear();''', '''        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
        chunks_.clear();
        ranges_.clear();'''),
  ('''        bool ok = true;
        size_t off = 0;''', '''        bool ok = true;
        for (const Range& r : ranges_) ok = cuMemAddressFree(r.addr, r.bytes) == CUDA_SUCCESS && ok;
        size_t off = 0;'''))
W("vmm-growable", "round-adds-a-unit-to-exact-multiples",
  "default output: sizes that are already whole units grow by one more: 'grow(100 MiB) in a 64 MiB reservation: 106954752 bytes mapped' (104857600 wanted), and the reservation is 66 MiB, not 64; the data right",
  "round computes (n + granularity_) / granularity_ * granularity_, 'the next multiple up'",
  "rounding up must leave an exact multiple as it is: (n + g - 1) / g * g; 100 MiB is already 50 units of 2 MiB",
  "own",
  ("        return (n + granularity_ - 1) / granularity_ * granularity_;", "        return (n + granularity_) / granularity_ * granularity_;"))

# ---- pool-resource
W("pool-resource", "neighbours-joined-across-streams",
  "a race and the record: a block freed on one stream is joined with a free neighbour freed on the other, the whole tagged with the latest freeing stream; a taker then waits only for that stream, and the neighbour's part is used while the other stream's work on it may still run (phase 1 from round 1 on, phase 7 and 8 with a third stream): an unordered use on most runs, sums wrong where the timing falls so; the chunk counts and the block lines right",
  "joins leaves out the comparison of the two tags, 'free is free: neighbours always join', as a single-stream pool would",
  "a block is free only in the order of the stream that freed it; two neighbours freed on two streams are free at two different times, and one event cannot stand for both: they must stay apart (or the joined block must carry both waits)",
  "rapidsai/rmm#2489 (free blocks of one stream merged into another's list lose the dependency on the first stream's work in flight)",
  ("        return a->second.free && b->second.free && a->second.chunk == b->second.chunk && a->second.tag == b->second.tag &&",
   "        return a->second.free && b->second.free && a->second.chunk == b->second.chunk &&"))
W("pool-resource", "neighbours-joined-across-chunks",
  "default output: in phase 3 the 16 MiB block (the first chunk's) and the 4 MiB block beside it (the second chunk's first bytes), both given back on stream 0, are joined across the chunks' border; phase 4's 20 MiB fits that block: '4. 20 MiB, more than a chunk: 2 chunk(s) taken' (3 wanted) and 'blocks: ... 1 not inside one chunk'",
  "joins leaves out the comparison of the two segments' chunks, 'two free blocks side by side are one free range', and the upstream happens to hand out chunks side by side",
  "each chunk is a separate allocation of the upstream and goes back whole on its own; a block spanning two chunks is not memory the pool may hand out as one (another upstream would not place them side by side at all)",
  "own",
  ("        return a->second.free && b->second.free && a->second.chunk == b->second.chunk && a->second.tag == b->second.tag &&",
   "        return a->second.free && b->second.free && a->second.tag == b->second.tag &&"))
W("pool-resource", "new-chunk-not-followed-by-a-record",
  "a race and the record: in phase 1's first round stream 1 takes the rest of stream 0's new chunk behind a wait on stream 0's event, which has never been recorded (a wait for nothing): stream 1's fill may run before or while the upstream's memset on stream 0 clears those bytes: an unordered use on every run (and phase 5's A, which takes the rest of C's new chunk, with a third stream); round 0's sum wrong where the memset lands last",
  "allocate takes the new chunk from the upstream without recording the asker's event after it, 'the event is recorded at every free, that is enough'",
  "a chunk is ready in the order of the stream that asked for it (the upstream clears it there); another stream that takes its rest must wait for a record made after that, and the asker's latest free came before it",
  "own",
  ('''            char* p = static_cast<char*>(upstream_.allocate(stream, size));
            // The chunk is ready in s's order: a stream that takes its
            // rest must wait for this record.
            CHECK(cudaEventRecord(event_of(s), s));''', '''            char* p = static_cast<char*>(upstream_.allocate(stream, size));'''))
W("pool-resource", "chunks-given-back-at-the-chunk-size",
  "default output: the 20 MiB chunk of phase 4 goes back as 16 MiB, which the upstream does not recognise: 'upstream: 3 chunks taken, 2 given back whole, 1 other deallocations' (3 and 0 wanted)",
  "the destructor gives every chunk back with chunk_ as its size, 'every chunk is chunk bytes', the size kept in chunks_ left unused",
  "a chunk is chunk bytes or the request's own size when that is larger; the upstream is owed each allocation back with the size it was asked for",
  "own",
  ("        for (const auto& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.first, c.second);",
   "        for (const auto& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.first, chunk_);"))
