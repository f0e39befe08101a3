"""The wrong files of blind23 (half B): for each, its exercise, slug, the
file's extension, the header's four fields, and the edits (old, new) that
make it from the exercise's correct file. make_wrong.py writes them."""
WRONGS = []

def wrong(ex, ext, slug, where, mistake, why, source, *edits):
    WRONGS.append(dict(ex=ex, ext=ext, slug=slug, where=where, mistake=mistake, why=why, source=source, edits=edits))

# ---- stream-ordered-pool ----
SOP = ('stream-ordered-pool', 'h')
wrong(*SOP, 'entry-numbered-before-its-record',
      "a race, the record only: every thief's first steal from a giver queues no wait at all, and later steals may skip the wait for the giver's newest record; errors in the printed line only by timing, likeliest with SPIN_US",
      "deallocate files the block with the giver's record count as it stands BEFORE recording the event and counting the record, so each block carries the number of the record before its own",
      "a block numbered R - 1 is taken for covered by a thief that waited behind record R - 1, which came before the block's give-back and holds none of the work queued since; a giver's first block is numbered 0, which every thief already 'waits behind', so the first steal from each giver is never ordered at all",
      "related: NVIDIA/cub#156 (a block listed as free before its event is recorded: another stream reads a stale record)",
      ('''        CHECK(cudaEventRecord(m.ev, s));
        m.recs++;
        kept_[s].push_back(Kept{static_cast<char*>(p), m.recs});''',
       '''        kept_[s].push_back(Kept{static_cast<char*>(p), m.recs});
        CHECK(cudaEventRecord(m.ev, s));
        m.recs++;'''))
wrong(*SOP, 'waited-mark-shared-by-every-thief',
      "a race, the record only: once one stream waited on a giver's record, every other stream that steals a block that giver gave back before it queues no wait; errors in the printed line only by timing (SPIN_US)",
      "the number of the record already waited for is kept once per giver (a field of its Mark), not per (thief, giver) pair: 'the giver remembers it was waited for'",
      "a wait orders only the stream that queued it: stream C stealing after stream B waited is ordered after nothing of the giver's, and may fill the block while the giver's kernels still read it",
      "own",
      ('''        unsigned long recs = 0;
    };''', '''        unsigned long recs = 0;
        unsigned long waited = 0;   // the latest record a thief already waits behind
    };'''),
      ('''            unsigned long& behind = waited_[std::make_pair(s, kv.first)];''',
       '''            unsigned long& behind = m.waited;'''))
wrong(*SOP, 'busy-giver-waited-for-on-the-host',
      "the record only, and only under some timings: a host wait (cudaEventSynchronize) at each steal whose giver still has work queued, surely with SPIN_US; the printed lines right, the order right",
      "where the thief is not yet behind the block's record, the steal asks cudaEventQuery and, while the giver's event is not done, calls cudaEventSynchronize on it instead of queuing cudaStreamWaitEvent: 'wait only when it has to, and skip the wait when it is done'",
      "the pool must never make the host wait: a busy giver stops the host in allocate until its kernels end, which a cudaStreamWaitEvent would have left to the GPU (the steal is safe either way, so nothing but the wait shows)",
      "related: cms-patatrack/pixeltrack-standalone#218 (a caching allocator that decides on the host whether a block's event is done)",
      ('''                CHECK(cudaStreamWaitEvent(s, m.ev, 0));''',
       '''                if (cudaEventQuery(m.ev) == cudaErrorNotReady) CHECK(cudaEventSynchronize(m.ev));'''))
wrong(*SOP, 'one-record-for-a-run-of-give-backs',
      "other arguments only (--handoff): a race in the record at the steals of every run of give-backs on one stream with kernels queued between them (the hand-offs' reads on the next stream, and the last stream's own blocks after the third stream's); the default run right (a stream's give-backs there follow all its kernels)",
      "deallocate records the giver's event only when the previous give-back came from another stream, 'the record made for the first block of a run covers the run'; later blocks of a run carry the run's first record number",
      "a record holds only the work queued before it: with --handoff a stream reads block k, gives it back, reads block k + 1 and gives it back, and the record made at the first give-back holds nothing of the second read, so a thief may fill block k + 1 while it is read",
      "related: chelsea0x3b/cudarc#386 (event records skipped to save calls)",
      ('''    std::map<cudaStream_t, Mark> marks_;               // by giving stream''',
       '''    std::map<cudaStream_t, Mark> marks_;               // by giving stream
    cudaStream_t last_ = nullptr;                      // the stream of the latest give-back'''),
      ('''        CHECK(cudaEventRecord(m.ev, s));
        m.recs++;''', '''        if (s != last_ || m.recs == 0) {
            CHECK(cudaEventRecord(m.ev, s));
            m.recs++;
        }
        last_ = s;'''))

# ---- python-handoff ----
PY = ('python-handoff', 'py')
wrong(*PY, 'main-stream-taken-inside-the-producer-block',
      "a race, the record: main's comparison reads sums, and main drops it, ordered after the producer only, never after the consumer's last sums; the consumer's first write of sums not ordered after its zeroing; the sums line now and then short at the last batches",
      "the line main = torch.cuda.current_stream() is written inside the first batch's `with torch.cuda.stream(producer)` block ('the streams are set up where they are first used'), so main is the producer, not the default stream: the consumer waits for the producer once at the top of the loop and at the end the producer, not the default stream, waits for the consumer",
      "inside a with torch.cuda.stream(...) block current_stream() is that block's stream: the default stream, where sums was zeroed and where main reads it, is never ordered with the consumer",
      "own",
      ('''    main = torch.cuda.current_stream()
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    consumer.wait_stream(main)  # sums was made and zeroed there
    events = [torch.cuda.Event(), torch.cuda.Event()]
    for b in range(batches):
        filled = events[b % 2]
        with torch.cuda.stream(producer):
''', '''    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    events = [torch.cuda.Event(), torch.cuda.Event()]
    for b in range(batches):
        filled = events[b % 2]
        with torch.cuda.stream(producer):
            if b == 0:
                main = torch.cuda.current_stream()
                consumer.wait_stream(main)  # sums was made and zeroed there
'''))
wrong(*PY, 'newer-setting-name-left-alone',
      "other environments only: with PYTORCH_ALLOC_CONF set (e.g. to expandable_segments:True or backend:native), which recent PyTorch reads before PYTORCH_CUDA_ALLOC_CONF, the first line says 'allocator backend: native' and nothing comes from cudaMallocAsync; with it unset, every line right",
      "TODO 1 rewrites PYTORCH_CUDA_ALLOC_CONF only, 'the CUDA allocator's own variable', and leaves PYTORCH_ALLOC_CONF as it is",
      "when both names are set PyTorch takes its settings from PYTORCH_ALLOC_CONF and ignores the older name, so a backend entry (or the lack of one) there wins over the rewritten CUDA one",
      "related: pytorch/torchtitan#1577 (PYTORCH_ALLOC_CONF, the newer name, to be used in place of PYTORCH_CUDA_ALLOC_CONF)",
      ('''for _name in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):''',
       '''for _name in ("PYTORCH_CUDA_ALLOC_CONF",):'''))
wrong(*PY, 'default-stream-joined-at-each-batch-start',
      "a race, the record: main's comparison reads sums[batches - 1], and main frees sums, with nothing ordering them after the last batch's sum on the consumer; the sums line now and then one short",
      "main.wait_stream(consumer) is written at the top of the loop body ('join the consumer every batch') instead of after the loop: each wait holds the batches before b, and nothing holds the last batch",
      "wait_stream orders main after the consumer's work queued so far; the last batch's doubling and sum are queued after the last such wait",
      "own",
      ('''    for b in range(batches):
        filled = events[b % 2]
''', '''    for b in range(batches):
        main.wait_stream(consumer)
        filled = events[b % 2]
'''),
      ('''        del x
    main.wait_stream(consumer)
''', '''        del x
'''))
wrong(*PY, 'doubled-copy-rebound-to-x',
      "a race, the record: every batch's producer tensor is freed on the producer while the consumer's doubling may still read it (record_stream marks the doubled copy instead); the next batch's tensor may get the same memory and be filled while it is read: the sums line short by timing",
      "the consumer doubles out of place and rebinds the name, x = x * 2, then sums it and calls x.record_stream(consumer): the mark lands on the consumer's own copy, and the producer's tensor loses its last reference at the assignment, unmarked",
      "the allocator orders a tensor's free after the streams recorded on THAT tensor; the producer's tensor, read by the consumer's multiplication, is freed in the producer's order only",
      "related: NVIDIA/TensorRT-LLM#15265 (tensors handed across streams freed without record_stream)",
      ('''            sums[b] = x.mul_(2).sum(dtype=torch.float64)''',
       '''            x = x * 2
            sums[b] = x.sum(dtype=torch.float64)'''))

# ---- peer-pool ----
PP = ('peer-pool', 'cu')
wrong(*PP, 'chunk-allocated-on-device-0s-stream',
      "the record (a race that the default run wins): each chunk's allocation is in s[0]'s order while device 1's produce writes it on s[1], unordered with it; and a chunk that s[0] freed behind round r's reduce may be handed to round r + 1, written by a produce that nothing orders after that reduce; the sums right by timing (produce spins 3 ms first)",
      "one_round queues the chunk's cudaMallocFromPoolAsync from pool[0] on t.s[0], 'the chunk is device 0's memory, so device 0's stream allocates it', instead of on s[1], the stream that writes it",
      "a stream-ordered allocation is usable only in the order of the stream it was made on, and of streams that wait for it: s[1] never waits for s[0] after the weights, so produce may touch the chunk before its allocation and, from round 1 on, the memory the previous reduce still reads",
      "related: rapidsai/rmm#2156 (memory allocated on one stream and used on another with no ordering between them)",
      ('''    CHECK(cudaSetDevice(1));
    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[1]));''',
       '''    CHECK(cudaMallocFromPoolAsync((void**)&chunk, n * sizeof(int), t.pool[0], t.s[0]));
    CHECK(cudaSetDevice(1));'''))
wrong(*PP, 'weights-copy-drawn-from-device-0s-pool',
      "the record only, most likely: device 1's copy of the weights lives in device 0's memory (pool[0]), so every produce reads its weights across the link; every printed line right (unless cudaMemcpyPeerAsync, told that w1 is device 1's, refuses the copy: then an error and the program stops)",
      "share_weights allocates w1 with cudaMallocFromPoolAsync from t.pool[0] on s[1], the call copied from the chunk's allocation, instead of from device 1's own pool",
      "w1 is to be device 1's own copy in device 1's memory; drawn from pool[0] it is device 0's memory that device 1 happens to be allowed to reach, and the copy buys nothing",
      "own",
      ('''    CHECK(cudaMallocAsync((void**)&w1, bytes, t.s[1]));''',
       '''    CHECK(cudaMallocFromPoolAsync((void**)&w1, bytes, t.pool[0], t.s[1]));'''))
wrong(*PP, 'finish-waits-for-device-1-before-freeing-the-weights',
      "the record only: a host wait in finish (cudaStreamSynchronize of s[1], the last produce's 3 ms) before main's own waits; every printed line right",
      "finish synchronizes s[1] before freeing w1, 'so that no produce still reads the weights when they go'",
      "cudaFreeAsync on s[1] already comes after every produce queued there; the host wait is one the exercise forbids and adds nothing",
      "related: zama-ai/concrete-core#337 (a stream synchronized before freeing memory, taken for necessary)",
      ('''    CHECK(cudaSetDevice(1));
    CHECK(cudaFreeAsync(w1, t.s[1]));''', '''    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamSynchronize(t.s[1]));
    CHECK(cudaFreeAsync(w1, t.s[1]));'''))
wrong(*PP, 'device-0-waits-only-in-the-first-round',
      "default output (a race): from round 1 on device 0's reduce may start while produce spins, and reads what the chunk held before: 'k of 5 rounds summed right', k most likely 1; the record: rounds 1 to 4 unordered",
      "one_round queues s[0]'s wait on produced only when r == 0, 'once s[0] waits for s[1] the two streams stay joined'",
      "a wait orders s[0] after the one record it binds to, not after everything s[1] queues later: each round's reduce needs a wait on that round's record",
      "related: torch/cutorch#222 (event waits taken to order more than the one record they bind to)",
      ('''    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));''',
       '''    if (r == 0) CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));'''))

# ---- graph-alloc ----
GA = ('graph-alloc', 'cu')
wrong(*GA, 'done-recorded-before-the-last-free',
      "by timing only: the host waits for the busy kernel but not for the last out's free, queued after the event; the trim may run before the free is done: 'after the trim: graph memory reserved 16 MiB, used 16 MiB' now and then (0 wanted), and the record sees a trim while a graph allocation is still live",
      "TODO 4 records the event on s first and queues cudaFreeAsync(out, s) after it, 'wait for busy, the free goes right behind it'",
      "cudaEventSynchronize waits only for the work queued before the record: the free comes after it in s's order, so nothing makes the host wait for it before the trim",
      "own",
      ('''    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaGraphExecDestroy(step));''', '''    CHECK(cudaGraphExecDestroy(step));'''),
      ('''    CHECK(cudaEventRecord(done, s));
''', '''    CHECK(cudaEventRecord(done, s));
    CHECK(cudaFreeAsync(out, s));
'''))
wrong(*GA, 'stream-synchronized-before-each-factor-change',
      "the record only: a host wait (cudaStreamSynchronize of s) at every launch, before the factor is set; every printed line right",
      "the loop synchronizes s before each cudaGraphExecKernelNodeSetParams, 'a node's parameters may not change while the graph runs'",
      "a change to an executable graph's node applies to the launches made after it and leaves launches already queued as they were; no wait is needed, and the exercise forbids it",
      "own",
      ('''        cudaKernelNodeParams p = scale_params;''', '''        CHECK(cudaStreamSynchronize(s));
        cudaKernelNodeParams p = scale_params;'''))
wrong(*GA, 'last-out-freed-on-s2',
      "the record only (most likely): the last out's free is queued on s2, which is ordered after none of s's work (the last launch of produce that allocated it, the sum that read it); the harness's wait on s had already let them end, so every printed line is most likely right",
      "TODO 4 gives the last out back with cudaFreeAsync(out, s2), 'the side stream is idle, it frees at once'",
      "a stream-ordered free must follow the allocation and every use in its stream's order; s2 joined s only inside step's capture, never outside it",
      "related: rapidsai/rmm#2156 (a free on a stream not ordered after the allocation)",
      ('''    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaGraphExecDestroy(step));''', '''    CHECK(cudaFreeAsync(out, s2));
    CHECK(cudaGraphExecDestroy(step));'''))
wrong(*GA, 'factor-written-into-the-nodes-own-argument-memory',
      "what the program does only: the factor is written into argument memory that the captured node owns and that the documentation says must not be modified; the totals most likely right (the executable gets the values the pointers show), and produce_graph's own node changes at every launch",
      "each launch writes k through scale_params.kernelParams[3], the array cudaGraphKernelNodeGetParams returned, and passes scale_params itself to cudaGraphExecKernelNodeSetParams, instead of a copy with an argument array of its own",
      "the kernelParams array returned by cudaGraphKernelNodeGetParams and the values it points to are owned by the node and must not be modified directly; the program edits the captured graph behind the driver's back",
      "related: ggml-org/llama.cpp#12152 (a kernel node's returned parameters modified in place)",
      ('''        const int* src = in;
        int count = n, factor = k;
        void* args[] = {(void*)&src, (void*)&out, (void*)&count, (void*)&factor};
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;
        p.extra = nullptr;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));''',
       '''        *(int*)scale_params.kernelParams[3] = k;   // the factor, in place
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &scale_params));'''))

# ---- heap-vs-pool ----
HP = ('heap-vs-pool', 'cu')
wrong(*HP, 'full-warp-mask-in-the-shuffles',
      "other arguments only: with LISTS not a multiple of 32 (e.g. heap_vs_pool 100001) the last warp's shuffles name lanes that returned before calling take (undefined behaviour: its run's length takes in whatever those lanes' registers give, the offset moves by that, and the block's later lists may go to the heap or the program may hang); with the default 100000 lists (3125 whole warps) every line right",
      "take uses 0xffffffff as the mask of its shuffles and of the loop over the asking lanes, 'every lane of a warp calls take', instead of __activemask()",
      "lanes with i >= n leave build_lists before take, so the last warp is not whole when n is not a multiple of 32: a __shfl_sync whose mask names exited lanes is undefined, and the run is summed over lanes that asked for nothing",
      "related: AdaptiveCpp/AdaptiveCpp#838 (a full-warp mask where only some lanes enter: undefined behaviour)",
      ('''    const unsigned mask = __activemask();''', '''    const unsigned mask = 0xffffffffu;   // every lane of a warp calls take'''))
wrong(*HP, 'whole-warp-run-sent-to-the-heap',
      "default output: 'blocks that sent a list to the heap while their slice had room for it' above 0 (a warp whose run does not fit whole sends all its lists to the heap though the slice could still hold the first of them); more lists from the heap than needed",
      "each lane keeps its list only when the warp's WHOLE run fits, old + run <= stride, 'the run fits whole or not at all', instead of when its own list ends within the stride",
      "a list must go to the heap only when it does not fit where the offset stands for it; the lanes at the start of a run that overflows would have fitted",
      "own",
      ('''    if (start + size <= a.stride) return''', '''    if (old + run <= a.stride) return'''))
wrong(*HP, 'last-slice-cut-to-the-size-asked',
      "other arguments only, and the record: where the last thread block is whole (LISTS a multiple of 256, e.g. heap_vs_pool 102400) its lists fill the slice to the stride and the last up to 511 bytes of it lie past the buffer's end (writes out of bounds of the allocation, inside the pool's memory, so most likely no fault); with the default 100000 the last block is partial and stays within sliceBytes",
      "make_arena allocates (blocks - 1) x stride + sliceBytes, 'the last slice needs no padding after it', while take still hands the last slice out up to the stride",
      "every slice may be used to the stride, the last one too; a buffer shorter than blocks x stride lets the last block's lists run past it",
      "own",
      ('''    e = cudaMallocAsync((void**)&buf, blocks * stride, s);''',
       '''    e = cudaMallocAsync((void**)&buf, (blocks - 1) * stride + sliceBytes, s);'''))
wrong(*HP, 'heap-limit-given-in-mib',
      "other arguments mostly: the heap limit is asked for in MiB (a few bytes), so the driver gives its least heap (4 MiB on an H200); with the default lists that may still hold the spill, with more lists (e.g. heap_vs_pool 1000000) 'heap limit does not fit' and lists without memory",
      "make_arena passes heap >> 20 to cudaDeviceSetLimit, 'the heap's size in MiB', where the limit is in bytes",
      "cudaLimitMallocHeapSize is a size in bytes; a request of a few bytes is rounded up to the driver's least heap, which does not grow with the spill",
      "own",
      ('''    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap);''',
       '''    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap >> 20);   // in MiB'''))

# ---- ipc-pool ----
IP = ('ipc-pool', 'cu')
wrong(*IP, 'filled-recorded-after-the-data-is-sent',
      "a race that the default run almost always wins: the child's wait on filled may be queued before the parent's record for the same round (it binds then to the round before's record, or in round 0 to none) and its first read may see the block before the fill; the parent's record usually comes first (the child must still receive and import), so the printed lines are most likely right and only some runs, or the record, show it",
      "TODO 2 sends the block's export data first and records filled on s right after the send, 'the record only marks the fill, it can come any time before the answer'",
      "the child queues its wait as soon as the data arrives, and a wait binds to the latest record queued at that moment: filled must be recorded behind the fill before anything lets the child wait on it",
      "related: sgl-project/sglang#14214 (a wait queued before the record it means to wait for)",
      ('''        CHECK(cudaEventRecord(filled, s));
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: could not hand over round %d\\n", r); return 1; }
''', '''        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: could not hand over round %d\\n", r); return 1; }
        CHECK(cudaEventRecord(filled, s));
'''))
wrong(*IP, 'free-stream-synchronized-before-it-is-destroyed',
      "the record only: one host wait in the parent during the rounds (cudaStreamSynchronize of fs in the last round, until the child's last read, about 30 ms, and its free are done); every printed line right",
      "in the last round the parent synchronizes fs before destroying it, 'a stream must be idle before it is destroyed'",
      "cudaStreamDestroy may be called with work still queued (the work runs and the stream goes after it); the wait is a host wait during the rounds, which the exercise forbids",
      "related: cupy/cupy#4537 (whether a stream may be destroyed with work still queued)",
      ('''        if (r == rounds - 1) CHECK(cudaStreamDestroy(fs));   // its work still runs''',
       '''        if (r == rounds - 1) {
            CHECK(cudaStreamSynchronize(fs));   // idle before it goes
            CHECK(cudaStreamDestroy(fs));
        }'''))
wrong(*IP, 'wait-queued-on-the-free-stream-but-free-on-s',
      "the record, and the program's own output by timing: every block is freed on s, which never waits for the child; the next round's allocation on s gets the same block at once and its fill may overwrite it while the child still reads it, so 'the block stayed the child's until it read it again' most likely falls below the rounds",
      "TODO 2 queues the wait on freed on fs as designed but the free itself on s, cudaFreeAsync(block, s)",
      "the free must be in the order of the stream that waited: on s it is ordered after the fill only, not after the child's read or its free of the import",
      "own",
      ('''        CHECK(cudaFreeAsync(block, fs));''', '''        CHECK(cudaFreeAsync(block, s));'''))
wrong(*IP, 'import-freed-with-a-plain-cudafree',
      "the child: its import is released with cudaFree while its use kernel may still read the block (30 ms); for stream-ordered memory cudaFree does not wait, so the kernel may read an unmapped block (an illegal address and a failed child) or the record sees a free before the read ends",
      "TODO 5 gives the import back with cudaFree(block), 'cudaFree waits for the device', then records freed and answers",
      "cudaFree performs no implicit synchronisation for pointers from a stream-ordered pool, imported ones included: callers must make sure every access is done first; cudaFreeAsync on s would have come after the kernel",
      "related: kokkos/kokkos#9307 (cudaFree taken to imply a device synchronisation)",
      ('''        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));''', '''        CHECK(cudaFree(block));
        CHECK(cudaEventRecord(freed, s));'''))

# ---- stream-pools ----
SP = ('stream-pools', 'cu')
wrong(*SP, 'arena-sized-for-one-counters-block',
      "the record only: the arena is allocated as n slices and ONE 256-byte counters block, while the layout gives every pool its own after its slice, so pool 3's last 768 bytes (its counters and the end of its slice) lie past the allocation (four slices of 512 KiB make exactly 2 MiB, and the 256 bytes more are rounded up to whole pages: the bytes past the allocation are most likely mapped, so no fault); every printed line most likely right",
      "init allocates n x slice + kCounterBytes, 'one header's worth for the counters', not n x (slice + kCounterBytes)",
      "pool i's stretch is slice + 256 bytes from arena_ + i x (slice + 256); n of them need n x (slice + 256) bytes, and the memsets, the counters' atomics and the last pool's blocks write past the allocation",
      "own",
      ('''        CHECK(cudaMalloc((void**)&arena_, (size_t)n * (slice + kCounterBytes)));''',
       '''        CHECK(cudaMalloc((void**)&arena_, (size_t)n * slice + kCounterBytes));'''))
wrong(*SP, 'reset-memset-without-its-stream-argument',
      "a race (default output by timing, and the record): each reset runs on the legacy default stream, which the non-blocking pool streams do not wait for and which does not wait for them; an offset may be cleared while the round before still allocates, or after the next round began: 'pool use read in stream order' and overlapping blocks now and then wrong, the record always",
      "reset calls cudaMemsetAsync(&counters(i)->offset, 0, sizeof(unsigned long long)) without its last argument, 'the stream is taken from the context', so the stream defaults to 0",
      "cudaMemsetAsync's stream parameter defaults to the legacy stream; the reset must be queued on s, between the work queued before it and after it",
      "NVIDIA/cutlass#214 (a cudaMemsetAsync left on the default stream while the kernel runs on the caller's stream)",
      ('''        CHECK(cudaMemsetAsync(&counters(i)->offset, 0, sizeof(unsigned long long), s));''',
       '''        (void)s;
        CHECK(cudaMemsetAsync(&counters(i)->offset, 0, sizeof(unsigned long long)));'''))
wrong(*SP, 'refusals-counted-up-to-the-highest-asking-lane',
      "other arguments only (GAPS 1): in the gapped round each refused warp is counted as 31 requests (lanes 0 to 30) where 24 asked: 'gapped round: N of M requests failed, more counted by the pools'; the default rounds have no refusals and the overflow round's warps ask whole, so every default line right",
      "a refused run adds 32 - __clz(mask) to the failed counter, 'the lanes up to the last one that asked', instead of __popc(mask)",
      "the asking lanes need not be the lanes 0 to k: where some lanes between ask for nothing the count is too high",
      "own",
      ('''        else atomicAdd(&c->failed, (unsigned long long)__popc(mask));''',
       '''        else atomicAdd(&c->failed, (unsigned long long)(32 - __clz(mask)));'''))
wrong(*SP, 'size-bits-scanned-one-short',
      "default output: every request of 497 to 512 bytes (32 units) is counted as 0 units in its warp's run and in the places above it: overlapping blocks and warps not given one run in the work rounds, and in the overflow round every block lands at the same start (a run of 0 units)",
      "the ballot loop runs a fixed five bits, for (int bit = 0; bit < 5; bit++), 'a block is at most 32 units, five bits'",
      "32 is 100000 in binary: six bits; the top bit of the largest size is never looked at",
      "own",
      ('''    for (int bit = 0; __any_sync(mask, (units >> bit) != 0); bit++) {''',
       '''    for (int bit = 0; bit < 5; bit++) {   // a block is at most 32 units'''))
