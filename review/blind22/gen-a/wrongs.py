# wrongs.py: each wrong file of blind22's first half: its exercise, slug,
# header (where it shows, the mistake, why it is wrong, its source) and the
# one edit, as (old, new) pairs applied to the exercise's correct file.
WRONGS = []

def W(exercise, slug, where, mistake, why, source, edits):
    WRONGS.append(dict(exercise=exercise, slug=slug, where=where, mistake=mistake, why=why,
                       source=source, edits=edits))

# ---------------------------------------------------------------- block-pool
W('block-pool', 'unaligned-pointer-truncated-to-its-unit',
  "other arguments only: with every class at most 256 bytes (e.g. block_pool 8 192 100 200) part 2 says 'pointer 4 bytes into a block refused: no', then the real give-back of that block is refused ('gave every block back: no, ...'); with the default classes the inner pointer is 256 bytes in and lands on a unit no block starts at, so it is refused",
  "deallocate checks that the pointer lies inside the one cudaMalloc but not that its offset is a multiple of 256 before dividing it by 256 for the unit table: a pointer a few bytes into a block is truncated to the unit where that block starts",
  "a pointer that is not the start of one of the pool's blocks must be refused and change nothing; here it gives the block back (its event recorded on the caller's stream) while the block's owner still holds it, and the owner's own give-back is later refused as a double free",
  "own",
  [("    if (off % kAlign != 0) return false;\n", "")])
W('block-pool', 'spare-events-left-at-destroy',
  "the record only: every event in the spare list at the end (one per block handed out again after its give-back, still there when destroy runs with a block of each class handed out) is never destroyed; the output right",
  "destroy destroys the events of the blocks still pending but forgets the spare list, where allocate puts an event back once its block's work is done",
  "destroy must give back everything the pool made; the spare events were made by deallocate and are leaked",
  "own",
  [("    for (cudaEvent_t ev : spare_) cudaEventDestroy(ev);\n", "")])
W('block-pool', 'give-back-waits-for-its-event',
  "default output, part 3 (host waits): 'deallocate() waited for its block's kernel: yes' (each held block's deallocate blocks until its gated kernel times out, about 200 ms), and the early request then gets a block whose kernel had ended ('not asked in time')",
  "deallocate records the block's event on the stream and then calls cudaEventSynchronize on it before listing the block as pending, so a block is always done by the time deallocate returns",
  "deallocate must not wait for the GPU: the work queued before the give-back may run for long (or, as in part 3, wait for the host), and a pool that stops the host there serialises the program; asking the event later, in allocate, with cudaEventQuery is what the exercise wants",
  "related: kokkos/kokkos#9307 (a free assumed to imply a device-wide wait)",
  [("    if (cudaEventRecord(ev, stream) != cudaSuccess) {",
    "    if (cudaEventRecord(ev, stream) != cudaSuccess || cudaEventSynchronize(ev) != cudaSuccess) {")])
W('block-pool', 'reverse-fill-skips-the-first-block',
  "default output, part 1: the eighth request of the smallest class gets nullptr: 'allocate(1000) returned nullptr while 1 blocks of 1000 bytes were free', exit 1",
  "init fills the idle stacks with a loop that counts down from the last block and stops at id > 0, so block 0 (the first block of the first class) is never put on its class's idle stack",
  "an off-by-one in a reverse loop: the pool has one block fewer in its first class than it laid out, so a class that should hold `blocks` requests runs out one early",
  "own",
  [("    for (int id = (int)slot_.size() - 1; id >= 0; id--)", "    for (int id = (int)slot_.size() - 1; id > 0; id--)")])

# ------------------------------------------------------------ async-pipeline
W('async-pipeline', 'block-freed-on-the-next-stream',
  "a race and the record: on 2 or more streams every iteration's block is freed in the next stream's order, which holds nothing of this stream's copy, kernels and copies back (an unordered free every iteration); results right or wrong by timing; with 1 stream (async_pipeline 12 1) it is right",
  "submit frees the iteration's block with cudaFreeAsync on streams_[(it + 1) % count_], the stream of the next iteration, instead of the stream that used it",
  "a stream-ordered free takes effect in the order of the stream it is given: the pool may hand the block to the next iteration's cudaMallocAsync on that stream while this iteration's kernels or copies back still read or write it",
  "NVlabs/cuda-oxide#619",
  [("    CHECK(cudaFreeAsync(block, s));", "    CHECK(cudaFreeAsync(block, streams_[(it + 1) % count_]));")])
W('async-pipeline', 'output-copied-back-from-the-input-region',
  "default output: '0 of 12 results right, 12 of 12 checksums right': every iteration's output holds its input values, not twice them",
  "the copy back of the scaled values reads the block's input region (dIn) instead of its output region (dOut)",
  "scale writes out of place, into the second region of the block; the first region still holds the values copied in, so the host gets its input back; the checksums, summed on the GPU from dOut, are right",
  "own",
  [("CHECK(cudaMemcpyAsync(out_ + off, dOut,", "CHECK(cudaMemcpyAsync(out_ + off, dIn,")])
W('async-pipeline', 'drain-waits-on-one-event-recorded-on-every-stream',
  "by timing only: drain waits for the last stream's work alone; iterations on the other streams may still be running when main reads them (the last iteration, read first, is on the last stream on 4 streams, so a failure shows only where another stream ends later, e.g. async_pipeline 13 4: iteration 12 is on stream 0)",
  "drain records the same event (ends_[0]) on every stream in turn and then queues one wait on it: only the last record counts",
  "recording an event again replaces what it captures; a wait queued after the loop takes only the last stream's record, so the joiner stream, and the host behind it, do not wait for the other streams",
  "torch/cutorch#222",
  [("""    for (int i = 0; i < count_; i++) {
        CHECK(cudaEventRecord(ends_[i], streams_[i]));
        CHECK(cudaStreamWaitEvent(joiner_, ends_[i], 0));
    }
""", """    for (int i = 0; i < count_; i++) CHECK(cudaEventRecord(ends_[0], streams_[i]));
    CHECK(cudaStreamWaitEvent(joiner_, ends_[0], 0));
""")])
W('async-pipeline', 'copy-in-made-with-a-plain-cudaMemcpy',
  "host waits and the record: every submit blocks in the copy in until it is done, so the host queues iterations one after another; the copy runs on the legacy stream, which the non-blocking streams do not join, unordered with the block's cudaMallocAsync on the iteration's stream; results right",
  "the copy of the input slice to the GPU is a cudaMemcpy instead of a cudaMemcpyAsync on the iteration's stream",
  "cudaMemcpy waits on the host (the exercise forbids any host wait in submit) and is ordered with neither the block's stream-ordered allocation nor the iteration's later work on its stream except by the host's wait itself",
  "related: StanfordLegion/realm#448 (plain calls on the default stream not ordered with the task's stream)",
  [("    CHECK(cudaMemcpyAsync(dIn, in_ + off, (size_t)n * sizeof(float), cudaMemcpyHostToDevice, s));",
    "    CHECK(cudaMemcpy(dIn, in_ + off, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));")])

# ---------------------------------------------------------------- pool-reuse
W('pool-reuse', 'phase-trims-to-the-threshold-it-replaces',
  "default output: 'entering narrow: reserved 128 MiB, its rounds reserve 32 MiB' and 'phase narrow: used high 32 MiB, reserved high 128 MiB, threshold 32 MiB' (32 and 32 wanted); the wide phase right",
  "enter_phase trims the pool to its current release threshold (read back with attr) before writing the new one, instead of to the new phase's peak",
  "entering narrow the threshold is still the wide phase's 128 MiB, so the trim keeps all 128 MiB, and the marks restarted after it start from 128 MiB: the narrow phase's figures carry the wide phase's memory; the extra goes back only at the first round's synchronisation",
  "own",
  [("""    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
""", """    CHECK(cudaMemPoolTrimTo(pool, attr(pool, cudaMemPoolAttrReleaseThreshold)));
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
""")])
W('pool-reuse', 'used-high-reported-from-the-current-use',
  "default output: both reports say 'used high 0 MiB' (128 and 32 wanted): the rounds have freed everything by the time report runs",
  "report reads cudaMemPoolAttrUsedMemCurrent for the used figure instead of cudaMemPoolAttrUsedMemHigh",
  "the report asks for the phase's high-water mark; what is in use now, after every round freed its buffers and synchronised, is 0",
  "own",
  [("    const uint64_t usedHigh = attr(pool, cudaMemPoolAttrUsedMemHigh);",
    "    const uint64_t usedHigh = attr(pool, cudaMemPoolAttrUsedMemCurrent);")])
W('pool-reuse', 'finish-trims-the-devices-default-pool',
  "default output: 'after the trim: reserved 32 MiB' (0 wanted); and the program trims the device's default pool, which it does not own",
  "finish lowers its own pool's threshold to 0 but then trims the device's default pool (cudaDeviceGetDefaultMemPool) instead of its own",
  "a trim acts at once, a threshold only at the next synchronisation: with no trim of its own pool, the program's pool still holds the narrow phase's 32 MiB when main reads it; trimming the default pool is a setting made on the wrong object",
  "own",
  [("""static int finish(cudaMemPool_t pool) {
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));
    CHECK(cudaMemPoolTrimTo(pool, 0));
""", """static int finish(cudaMemPool_t pool) {
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, 0));
    cudaMemPool_t device_pool = nullptr;
    CHECK(cudaDeviceGetDefaultMemPool(&device_pool, 0));
    CHECK(cudaMemPoolTrimTo(device_pool, 0));
""")])
W('pool-reuse', 'held-reads-the-reserved-high-mark',
  "other arguments only (TRIM inside the rounds, e.g. pool_reuse 6 4 32 3): the round after the trim is counted as finding its memory reserved: 'wide: 5 of 6 rounds found their 128 MiB already reserved' (4 wanted) and 'narrow: 6 of 6' (5 wanted); the default run right",
  "held reads cudaMemPoolAttrReservedMemHigh (the most the pool has held since the marks were restarted) instead of cudaMemPoolAttrReservedMemCurrent",
  "a high-water mark does not come down when the pool gives memory back: after a trim the pool holds nothing, but the mark still says the phase's peak, so held answers yes for a round that will ask the driver",
  "own",
  [("    const uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemCurrent);",
    "    const uint64_t reserved = attr(pool, cudaMemPoolAttrReservedMemHigh);")])

# -------------------------------------------------------------- cross-stream
W('cross-stream', 'each-half-squares-n-values',
  "the record (out-of-bounds reads and writes on both work streams every chunk) and sums by chance: each square writes n floats into a buffer of n / 2, half 1 also reads n / 2 floats past the values' end",
  "stage_work launches square with the chunk's n values instead of its half h = n / 2",
  "each half's buffer holds n / 2 floats and half 1 starts n / 2 into the values: both squares run past their buffers, over whatever the pool placed next (another half's squares, another chunk's values)",
  "own",
  [("    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * h, ch.squares[half], h);",
    "    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * h, ch.squares[half], ch.n);")])
W('cross-stream', 'partial-sums-allocated-on-the-copy-stream',
  "a race and the record: the partial sums are allocated in copy_'s order and written on reduce_ with nothing ordering the two (an unordered use every chunk); the pool may give chunk c's sums the block chunk c - 1's copy still reads, so an earlier chunk's sums may be overwritten before they are copied: results wrong by timing",
  "stage_reduce allocates the partial sums with cudaMallocAsync on copy_ (the stream that frees them) instead of on reduce_, the stream that writes them",
  "memory from cudaMallocAsync is valid only in the order of the stream it was allocated on; reduce_ writes it without waiting for copy_, where the previous chunk's sums were just freed and may be this very block, not yet copied",
  "related: rapidsai/rmm#2156 (memory used and freed on a stream not ordered after its allocation)",
  [("    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), HALVES * BLOCKS * sizeof(float), reduce_));",
    "    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), HALVES * BLOCKS * sizeof(float), copy_));")])
W('cross-stream', 'generate-launched-on-the-first-work-stream',
  "a race and the record, default output by timing: half 1's square may read the values before generate has written them (its wait on LOADED holds only the values' allocation), and generate itself writes the block before its allocation on load_ is ordered: half 1's sums wrong on some chunks; the stages also lose their overlap",
  "stage_load launches generate on work_[0] instead of load_, and records LOADED on load_ as before",
  "the LOADED event now follows only the cudaMallocAsync on load_; nothing orders work_[1]'s square after generate, nor generate after the allocation on another stream",
  "own",
  [("    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);",
    "    generate<<<BLOCKS, THREADS, 0, work_[0]>>>(ch.values, ch.n, ch.index);")])
W('cross-stream', 'reduced-recorded-before-the-sums',
  "a race and the record, default output by timing: copy_ may copy the partial sums before both sums have written them, and frees them in its order possibly before the sums run (a use after free on reduce_): some chunks' sums wrong",
  "stage_reduce records REDUCED right after its waits and the partial sums' allocation, before the two sums, instead of after them",
  "an event marks the work queued before its record: copy_'s wait then holds only the allocation, not the sums it copies",
  "own",
  [("""    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), HALVES * BLOCKS * sizeof(float), reduce_));
""", """    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), HALVES * BLOCKS * sizeof(float), reduce_));
    CHECK(cudaEventRecord(ev_[REDUCED], reduce_));
"""), ("""    for (int half = 0; half < HALVES; half++) CHECK(cudaFreeAsync(ch.squares[half], reduce_));
    CHECK(cudaEventRecord(ev_[REDUCED], reduce_));
""", """    for (int half = 0; half < HALVES; half++) CHECK(cudaFreeAsync(ch.squares[half], reduce_));
""")])

# --------------------------------------------------------------- strict-pool
W('strict-pool', 'pool-never-destroyed',
  "the record only: the program's pool is never destroyed (a leaked memory pool at the end); the output right",
  "the destructor destroys the events but never calls cudaMemPoolDestroy on the pool the constructor created",
  "the destructor must give back what the constructor made; the pool, and whatever it still reserves, outlives the StrictPool",
  "own",
  [("    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);\n", "")])
W('strict-pool', 'event-recorded-only-when-made',
  "default output: from round 1 on B waits for round 0's record only, so it never gets A's block: '1 of 6 rounds: B reused the block A freed' and 'pool reserved at most 64 MiB for blocks of 32 MiB' (32 wanted); the sums right (the blocks differ)",
  "hand records the receiving stream's event on from only when it makes it (at the first hand to that stream), and at every later hand only queues the wait",
  "a wait takes the event's latest record; without a new record at each hand, to waits for from's work of the first round alone, which holds nothing of the later puts, and with opportunistic reuse and internal dependencies off the pool will not give to a block freed in from's order",
  "related: eyalroz/cuda-api-wrappers#226 (a wait uses the state the event captured at its latest record)",
  [("""        it = arrivals_.emplace(to, ev).first;
    }
    if (note(cudaEventRecord(it->second, from))) return;
""", """        it = arrivals_.emplace(to, ev).first;
        if (note(cudaEventRecord(it->second, from))) return;
    }
""")])
W('strict-pool', 'policies-read-from-the-devices-default-pool',
  "default output: 'pool: opportunistic 1, internal dependencies 1' (0 and 0 wanted), though the program's own pool has both off; the rounds right",
  "policy asks cudaDeviceGetDefaultMemPool for the device's default pool and reads the attribute there instead of from the pool the StrictPool made",
  "the reuse policies are attributes of each pool; the default pool keeps the driver's defaults (on), so the report says nothing of the pool the rounds use",
  "own",
  [("""    int value = -1;
    if (pool_ == nullptr || note(cudaMemPoolGetAttribute(pool_, attr, &value))) return -1;
""", """    int value = -1;
    cudaMemPool_t asked = nullptr;
    if (pool_ == nullptr || note(cudaDeviceGetDefaultMemPool(&asked, 0)) || note(cudaMemPoolGetAttribute(asked, attr, &value))) return -1;
""")])
W('strict-pool', 'wait-on-the-other-directions-event',
  "default output: B never follows A's puts (each wait takes the record the other direction's hand made on the waiting stream itself, round 0's none): '0 of 6 rounds: B reused the block A freed' and 'pool reserved at most 64 MiB for blocks of 32 MiB'",
  "hand records to's event on from but queues to's wait on the event kept for from (the other direction's), when there is one",
  "the event to waits for was last recorded on to itself (by the reverse hand), so the wait orders nothing of from's; the pool, with no event of the program's between A's free and B's allocation, keeps A's block from B",
  "own",
  [("    note(cudaStreamWaitEvent(to, it->second, 0));\n",
    """    auto back = arrivals_.find(from);
    if (back != arrivals_.end()) note(cudaStreamWaitEvent(to, back->second, 0));
""")])

# -------------------------------------------------------------- vmm-growable
W('vmm-growable', 'moved-chunk-opened-at-the-new-ranges-start',
  "other arguments only (a move of two chunks or more, e.g. growable 100 64 300): after the second move the last 2 MiB of the second chunk (98 to 100 MiB) are mapped without access: reading them fails, 'old data kept: 1, new region: 0' (or a kernel fails); the default run moves one chunk only and is right",
  "move opens each chunk mapped into the new range with cuMemSetAccess at the new range's start (fresh) instead of at the chunk's own offset (fresh + off)",
  "access is set per address range: for the first chunk both are the same; for a later chunk the call opens the chunk's size from the range's start, which covers the chunks before it and leaves the chunk's own tail closed",
  "own",
  [("            if (cuMemSetAccess(fresh + off, c.bytes, &access_, 1) != CUDA_SUCCESS) {",
    "            if (cuMemSetAccess(fresh, c.bytes, &access_, 1) != CUDA_SUCCESS) {")])
W('vmm-growable', 'release-unmaps-every-chunk-at-the-start',
  "default output: 'release: failed' and 'every reservation given back: no': the second chunk's unmap is asked at the range's start, already unmapped, and refused; the range, still mapped, is not freed",
  "release unmaps each chunk at base_ + off but never advances off, so every chunk after the first is unmapped at the buffer's start",
  "cuMemUnmap must be given the addresses a mapping was made at; only the first chunk is taken down, the later ones stay mapped, and the driver will not free a range with mappings in it",
  "own",
  [("""            ok = cuMemUnmap(base_ + off, c.bytes) == CUDA_SUCCESS && ok;
            off += c.bytes;
""", """            ok = cuMemUnmap(base_ + off, c.bytes) == CUDA_SUCCESS && ok;
""")])
W('vmm-growable', 'handle-released-right-after-its-map',
  "default output: the move of grow(100 MiB) cannot map the first chunk again: 'grow to 104857600 bytes failed', and the teardown after it fails too (each handle released twice)",
  "grow releases each chunk's handle with cuMemRelease right after mapping it, as the usual one-time allocation does, and still lists it in chunks_",
  "after cuMemRelease the memory lives on only through its mapping; the handle can no longer be mapped again, which a move into a larger range needs, and release() later releases it a second time",
  "related: NVIDIA/nccl#1795 (when cuMemRelease may come relative to the mapping)",
  [("        chunks_.push_back({h, extra});", "        cuMemRelease(h);\n        chunks_.push_back({h, extra});")])
W('vmm-growable', 'round-masked-with-not-granularity',
  "default output: nothing printed and exit status 1: reserve(64 MiB) rounds to 64 MiB + 2 MiB - 1 bytes, which cuMemAddressReserve refuses (its error on stderr)",
  "round adds granularity_ - 1 and then masks with ~granularity_ instead of ~(granularity_ - 1)",
  "~granularity_ clears one bit only; the low bits stay set, so the size is not a whole number of granularity units and the driver refuses every range and allocation of it",
  "related: fzyzcjy/torch_memory_saver#82 (VMM sizes not rounded to the granularity are refused)",
  [("        return (n + granularity_ - 1) / granularity_ * granularity_;",
    "        return (n + granularity_ - 1) & ~granularity_;")])

# ------------------------------------------------------------- pool-resource
W('pool-resource', 'empty-rest-written-over-the-next-block',
  "default output: by my trace, in phase 1's second round the stream that takes its own 4 MiB block whole writes a rest of 0 bytes under the key of the free 8 MiB block after it, which is lost; the pool then asks its upstream for more chunks than it needs (the chunk counts grow, up to the upstream's 'grows without end' stop)",
  "allocate puts the rest of the cut block back in the free map even when the block fits exactly, as a block of 0 bytes at p + need, through operator[]",
  "when the fit is exact, p + need is where the next block starts; if that block is free, its entry is overwritten with a size of 0, and its memory is never found again",
  "own",
  [("        if (block.size > need) free_[p + need] = Free{block.size - need, block.chunk, block.tag};",
    "        free_[p + need] = Free{block.size - need, block.chunk, block.tag};")])
W('pool-resource', 'freed-block-sized-from-the-callers-bytes',
  "default output: from phase 1 on, the block of 4 MiB - 100 bytes goes back as 4 MiB - 100 bytes: its last 100 bytes (and its join with the next block) are lost, the block is too small for the next 4 MiB request, and the pool asks its upstream for more chunks than it needs",
  "deallocate takes the freed block's size from the caller's bytes argument instead of the size the pool recorded when it cut the block (rounded up to 256)",
  "the pool handed out need = bytes rounded up to 256; the caller's count is smaller, so the free block ends short of its neighbour and is never joined again",
  "own",
  [("    void deallocate(mr::stream_ref stream, void* p, size_t, size_t = mr::default_alignment) noexcept {",
    "    void deallocate(mr::stream_ref stream, void* p, size_t bytes, size_t = mr::default_alignment) noexcept {"),
   ("        Free block{u->second.size, u->second.chunk, s};", "        Free block{bytes, u->second.chunk, s};")])
W('pool-resource', 'lower-neighbour-looked-up-without-stepping-back',
  "default output, phase 2: a block is never joined with the free block below it: the four 4 MiB blocks given back in the order 0, 2, 1, 3 do not make 16 MiB again, and the 16 MiB request takes a new chunk (the chunk count after phase 2 one higher)",
  "deallocate looks for the lower neighbour with free_.lower_bound(at) and tests that entry, without stepping back to the one before it",
  "lower_bound gives the first key at or above the address, never a block below it; the test that it ends where the freed block starts is never true",
  "own",
  [("""        auto prev = free_.lower_bound(at);
        if (prev != free_.begin()) {
            --prev;
            if (""", """        auto prev = free_.lower_bound(at);
        if (prev != free_.end()) {
            if (""")])
W('pool-resource', 'new-chunk-event-recorded-before-the-upstream-call',
  "a race and the record: a stream taking the rest of a chunk another stream just got waits for a record made before the upstream's clearing of the chunk on that stream (phase 1, first round: stream 1's fill unordered with stream 0's cudaMemsetAsync of the chunk); sums wrong by timing",
  "allocate records the asker's event before asking the upstream for a new chunk instead of after",
  "the upstream's memory is ready only in the asker's order after its own work (here a clearing memset); an event recorded before that work holds none of it, so another stream waiting on it may write the rest while the clearing is still running",
  "own",
  [("""            char* c = static_cast<char*>(upstream_.allocate(stream, bytesOfChunk));
            if (c == nullptr) return nullptr;
            chunks_.push_back({c, bytesOfChunk});
            CHECK(cudaEventRecord(event_of(s), s));
""", """            CHECK(cudaEventRecord(event_of(s), s));
            char* c = static_cast<char*>(upstream_.allocate(stream, bytesOfChunk));
            if (c == nullptr) return nullptr;
            chunks_.push_back({c, bytesOfChunk});
""")])
