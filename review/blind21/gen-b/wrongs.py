"""Each wrong file of blind21 half B: its exercise, slug, header fields and
ONE edit of the exercise's correct file (old must match exactly once)."""
WRONGS = []


def W(ex, slug, shows, mistake, why, source, old, new):
    WRONGS.append(dict(ex=ex, slug=slug, shows=shows, mistake=mistake, why=why, source=source, old=old, new=new))


# ---------------------------------------------------------------- stream-ordered-pool
W("stream-ordered-pool", "give-back-recorded-on-the-setup-stream",
  "race: the record at the steals of blocks given back on any stream but s[0] (the stealer's use not ordered after the giver's check); the errors count now and then, surely with SPIN_US, mostly with --handoff",
  "deallocate records the block's event on setup_, the stream the pool was made with, instead of on s, the stream that gives the block back",
  "the event then marks how far s[0] has come, not the giver: a steal's wait orders the stealer after s[0]'s work only, and the giving stream's fill and check of the block may still run while the stealer writes it",
  "own",
  "        CHECK(cudaEventRecord(ev, s));",
  "        CHECK(cudaEventRecord(ev, setup_));")
W("stream-ordered-pool", "steal-wait-queued-on-the-giving-stream",
  "race: the record at every steal (the stealer's fill not ordered after the giver's work on the block); the errors now and then, surely with SPIN_US",
  "the steal queues the wait on the giving stream, cudaStreamWaitEvent(giver, ev), instead of on s, the stream that takes the block",
  "the giver waiting for its own event orders nothing new (it is already behind that point); s, which will write the block, is left unordered after the giver's kernels",
  "related: NVIDIA/cuCascade#189 (a freed slab handed out again without its stream order, reused under an in-flight transfer)",
  "        CHECK(cudaStreamWaitEvent(s, it->second.ev, 0));",
  "        CHECK(cudaStreamWaitEvent(it->second.giver, it->second.ev, 0));")
W("stream-ordered-pool", "spare-events-never-destroyed",
  "other arguments only (--keep): a leak of events in the record, one for each block still handed out when the pool ends (their events went back to the stock at the take); in the default run every block was given back, so every event is on a kept entry and the stock is empty at the end: nothing leaks, every line right",
  "the destructor destroys the events of the entries still kept but forgets the stock of spare events",
  "an event put back in the stock is still an event the pool made; whenever blocks are still out at the end the stock holds events that nobody destroys",
  "own",
  """        for (cudaEvent_t ev : stock_) CHECK(cudaEventDestroy(ev));
        stock_.clear();
""",
  """        stock_.clear();
""")
W("stream-ordered-pool", "own-test-inverted",
  "race and the program's own output: the allocations line (own and stolen swapped round); the record: blocks of another stream taken with no wait at all (uses not ordered after the giver's check), and needless waits on s's own blocks; the errors now and then, surely with SPIN_US",
  "the own-take loop skips the entries s gave back (giver == s) instead of those it did not: the test is written the wrong way round",
  "the first loop then hands s a block another stream gave back, counted as own and with no wait, while s's own blocks are taken later as steals behind a wait on s's own event",
  "own",
  "            if (it->second.giver != s) continue;",
  "            if (it->second.giver == s) continue;")

# ---------------------------------------------------------------- python-handoff
W("python-handoff", "entries-joined-with-semicolons",
  "other arguments only (an environment whose PYTORCH_CUDA_ALLOC_CONF already holds another entry, e.g. expandable_segments:False): PyTorch's parser meets 'expandable_segments:False;backend:cudaMallocAsync' as one value and stops with an error on the setting (or reads the wrong backend); with the variable unset the one entry needs no separator and every line is right",
  "the kept entries and the new backend entry are joined with ';' instead of ','",
  "PyTorch separates the entries of its allocator setting with commas; with a semicolon the backend entry becomes part of the entry before it",
  "own",
  '    os.environ[_var] = ",".join(_kept)',
  '    os.environ[_var] = ";".join(_kept)')
W("python-handoff", "sums-zeroing-not-awaited-by-the-consumer",
  "race: the record (the consumer's writes into sums not ordered after the default stream's zeroing); the sums right nearly always, since the zeroing was queued long before",
  "the consumer never waits for the default stream, where sums was made and zeroed",
  "sums is written on the consumer; without a wait on the default stream the consumer's first writes may land before, or be wiped by, the zeros",
  "related: flashinfer-ai/flashinfer#5027 (a side stream not ordered after the default stream that initialised its inputs)",
  """    # sums was zeroed on the default stream; the consumer writes into it.
    consumer.wait_stream(torch.cuda.current_stream())
""",
  "")
W("python-handoff", "filled-recorded-after-leaving-the-producer-block",
  "race, the program's own output: filled is recorded on the default stream, not the producer, so the consumer reads x before its fill: 'sums: k of 12 correct' with k often 0 (the memory holds the batch before's values, or whatever it held); the record: uses of x not ordered after its allocation and fill",
  "filled.record() is written after the with block, where the current stream is the default stream again",
  "Event.record() with no argument records on the current stream; outside the producer's block that is the default stream, which has nothing to do with the fill",
  "related: ROCm/pytorch#3194 (a consumer on one stream reading what another stream's copy has not written yet)",
  """            x.record_stream(consumer)
            filled.record()
""",
  """            x.record_stream(consumer)
        filled.record()
""")
W("python-handoff", "x-allocated-on-the-default-stream",
  "race: the record at every batch (x allocated in the default stream's order, filled on the producer with nothing ordering the fill after the allocation; its free, at the drop, also on the default stream); the sums now and then wrong: a batch's x can get the memory of the batch before, whose free on the default stream waited for the consumer's read, but the producer's fill of the new x is ordered after neither that free nor that read",
  "x is made with torch.empty before the with block, on the default stream, and only filled inside it",
  "a tensor belongs to the stream current at its allocation: its memory is ready in the default stream's order, and PyTorch frees it there; the producer writes it without any order after that allocation",
  "own",
  """        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
""",
  """        x = torch.empty(N, dtype=torch.float32, device="cuda")
        with torch.cuda.stream(producer):
""")

# ---------------------------------------------------------------- peer-pool
W("peer-pool", "round-event-made-while-device-0-is-current",
  "the program's own output: the first round's cudaEventRecord fails (an event of device 0 recorded on device 1's stream: invalid resource handle), the program stops after the two access lines, no rounds line",
  "one_round makes the round's event first, while device 0 (the caller's) is still current, and switches to device 1 after",
  "an event belongs to the device current when it is made, and can only be recorded on a stream of that device",
  "rapidsai/rmm#1306 (an event made on one device recorded on another device's stream: invalid resource handle)",
  """    CHECK(cudaSetDevice(1));
    cudaEvent_t made;
    CHECK(cudaEventCreateWithFlags(&made, cudaEventDisableTiming));
""",
  """    cudaEvent_t made;
    CHECK(cudaEventCreateWithFlags(&made, cudaEventDisableTiming));
    CHECK(cudaSetDevice(1));
""")
W("peer-pool", "weights-copied-one-int-past-the-end",
  "the record: the copy kernel reads w0[n] and writes w1[n], one int past both allocations (4 MiB each by default, an exact multiple of the pools' 2 MiB granules, so the int past the end may not be mapped: then an illegal address and the program stops with an error, no rounds line); where the pool has more mapped, every printed line right",
  "copy_ints loops while i <= n instead of i < n",
  "the last index of n ints is n - 1; the extra pass reads and writes the int after each buffer",
  "own",
  "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) dst[i] = src[i];",
  "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i <= n; i += (size_t)blockDim.x * gridDim.x) dst[i] = src[i];")
W("peer-pool", "access-granted-read-only",
  "the program's own output: either setup stops at cudaMemPoolSetAccess (read-only is not an access a pool takes: invalid value) before any line, or the access line says read and device 1's first produce, which writes into pool[0], faults (an illegal address, the program stops with an error, no rounds line)",
  "setup grants device 1 cudaMemAccessFlagsProtRead on pool[0], 'device 1 only needs to read device 0's weights'",
  "device 1 also WRITES into pool[0]: every chunk is allocated there and filled by device 1's produce; the grant must be read-write",
  "related: rapidsai/rmm#1753 (cudaMemPoolSetAccess given an access flag other than read-write fails)",
  "    desc.flags = cudaMemAccessFlagsProtReadWrite;",
  "    desc.flags = cudaMemAccessFlagsProtRead;")
W("peer-pool", "chunk-freed-before-its-reduce-is-queued",
  "the record: every round's reduce reads its chunk after the chunk's free in s[0]'s own order (a use after free); the sums most likely right (the pool keeps the memory mapped), wrong when the next round's chunk takes the same memory and device 1 overwrites it first",
  "one_round queues the chunk's cudaFreeAsync on s[0] right after the wait, before the reduce launch",
  "a stream-ordered free frees at its place in the stream: everything queued after it on s[0], the reduce here, runs on memory already given back",
  "own",
  """    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(chunk, t.s[0]));""",
  """    CHECK(cudaFreeAsync(chunk, t.s[0]));
    reduce<<<kBlocks, kThreads, 0, t.s[0]>>>(chunk, n, sum);
    CHECK(cudaGetLastError());""")

# ---------------------------------------------------------------- graph-alloc
W("graph-alloc", "join-recorded-on-s-not-s2",
  "the program's own output: step's capture cannot end (s2 was drawn into it by the wait on fork and never brought back: capturing stream has unjoined work), the program stops with that error before its first line",
  "join is recorded on s, the origin stream, instead of on s2, after s2's free of b; s then 'waits' for its own event",
  "the capture closes only when every stream it drew in is joined back to the origin stream; the join event has to be recorded on the forked stream s2 and waited for by s",
  "deepseek-ai/DeepEP#62 (a capture that fails to end: capturing stream has unjoined work)",
  "    CHECK(cudaEventRecord(join, s2));",
  "    CHECK(cudaEventRecord(join, s));")
W("graph-alloc", "b-freed-on-s-before-the-join",
  "the program's own output, the step line: '2 kernels not before their buffer's free' and 'longest chain 5 nodes' (b's free node hangs from a's free on s's branch, not after s2's scale and sum of b); the record: a use after free in every step launch; the step total usually right (if the driver refuses a free node not ordered after its allocation node, the capture's cudaFreeAsync fails instead and the program stops before its first line)",
  "step's capture frees b on s, 'all the frees on the main stream', right after a's free and before s has waited for join",
  "at that point in the capture s is ordered only after its own branch: the free node of b depends on a's branch and not on s2's scale and sum of b, so b can be freed while s2's kernels still read it",
  "own",
  "    CHECK(cudaFreeAsync(b, s2));",
  "    CHECK(cudaFreeAsync(b, s));")
W("graph-alloc", "sum-queued-before-its-produce-launch",
  "the program's own output: the first sum reads out before any launch of produce has allocated (mapped) it: most likely an illegal address, the program stops with that error at its copy back, no totals line; where the memory happens to be mapped, 'produce total' n L (L - 1) / 2 where n L (L + 1) / 2 is expected (each sum reads the launch before's out, the last out is never summed); the record: a use of out before its allocation",
  "the loop queues the sum of out on s before cudaGraphLaunch(produce, s) instead of after it",
  "the sum must come after the launch that writes out in s's order; queued before, it reads what the launch before left (and, in the first round, memory no launch has allocated yet)",
  "own",
  """        CHECK(cudaGraphLaunch(produce, s));
        sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);""",
  """        sum<<<sumBlocks, 256, 0, s>>>(out, n, totals + 1);
        CHECK(cudaGraphLaunch(produce, s));""")
W("graph-alloc", "trim-before-the-device-wait",
  "the program's own output, the last line: 'after the trim: graph memory reserved 16 MiB' (by default) (out's, or a little more) where 0 is wanted: the trim runs while out's free still waits behind the busy kernel, so out's memory is in use and is kept; used 0 by the time it is read",
  "TODO 4 calls cudaDeviceGraphMemTrim first and cudaDeviceSynchronize after it",
  "the trim gives back only graph memory that is free at the moment of the call; the free of the last out is queued on s behind tens of milliseconds of busy work, so the host must wait for it before trimming",
  "related: pytorch/executorch#22312 (a trim with a free still pending recovers nothing; a stream synchronize first recovers it all)",
  """    CHECK(cudaDeviceSynchronize());
    CHECK(cudaDeviceGraphMemTrim(device));""",
  """    CHECK(cudaDeviceGraphMemTrim(device));
    CHECK(cudaDeviceSynchronize());""")

# ---------------------------------------------------------------- ipc-pool
W("ipc-pool", "pool-made-without-a-handle-type",
  "the program's own output: the parent's cudaMemPoolExportToShareableHandle fails (invalid value: the pool was not made exportable), the parent stops in TODO 1 and the child, finding no descriptor, fails too: 'the child failed' and 0 of 5 on both counts (or no lines past the error)",
  "the pool's properties leave handleTypes at cudaMemHandleTypeNone, 'the handle type is named when the pool is exported'",
  "a pool can only be exported as the kinds of handle it was created for: cudaMemHandleTypePosixFileDescriptor must be in props.handleTypes at cudaMemPoolCreate",
  "own",
  "    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;\n",
  "    props.handleTypes = cudaMemHandleTypeNone;\n")
W("ipc-pool", "last-block-freed-without-waiting-for-freed",
  "race, in the record at the last round only (the parent's free of the last block not ordered after the child's read and free of its import); every printed line most likely right (no fill follows it); other arguments: with ROUNDS 1 it is the only round",
  "the last round takes the child's answer but frees its block without queuing s's wait on freed first (the rounds before still wait, in the deferred branch)",
  "the answer only says the child's calls were made; the child's GPU may still be reading the block for 30 ms, and only the wait on freed orders the parent's free after that",
  "own",
  """            if (!recv_all(sock, &answer, 1) || answer != (unsigned char)r) { fprintf(stderr, "exporter: no answer for round %d\\n", r); return 1; }
            CHECK(cudaStreamWaitEvent(s, freed, 0));
""",
  """            if (!recv_all(sock, &answer, 1) || answer != (unsigned char)r) { fprintf(stderr, "exporter: no answer for round %d\\n", r); return 1; }
""")
W("ipc-pool", "child-polls-filled-with-event-query",
  "the record: host waits in the child every round (a loop of cudaEventQuery on filled, about the 10 ms fill, counted as polling); every printed line right",
  "the child spins on cudaEventQuery(filled) until the parent's fill is done instead of queuing cudaStreamWaitEvent(s, filled, 0)",
  "the exercise forbids host waits during the rounds; a query loop is a host wait too, only a busy one: s itself should wait, in its own order",
  "related: triton-inference-server/server#1108 (a busy-wait loop on a CUDA event in place of a blocking or stream-side wait)",
  "        CHECK(cudaStreamWaitEvent(s, filled, 0));\n",
  "        while (cudaEventQuery(filled) == cudaErrorNotReady) {}\n")
W("ipc-pool", "handles-sent-before-the-descriptor",
  "the program's own output: the child's recv_fd meets the event handles' bytes, which carry no descriptor, and fails ('importer: no pool descriptor came'); the parent then fails on its first answer: 'the child failed', no round lines, 0 of 5 on both counts",
  "the parent sends the events' handles first and the pool's descriptor after them, while the child, as written, receives the descriptor first",
  "the two sides of a socket must agree on the order of its messages: the child's first receive is recv_fd, which expects the message that carries SCM_RIGHTS",
  "own",
  """    bool sent = send_fd(sock, fd);
    close(fd);
    if (!sent) { fprintf(stderr, "exporter: cannot send the pool\\n"); return 1; }
    CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming | cudaEventInterprocess));
    CHECK(cudaEventCreateWithFlags(&freed, cudaEventDisableTiming | cudaEventInterprocess));
    cudaIpcEventHandle_t handles[2];
    CHECK(cudaIpcGetEventHandle(&handles[0], filled));
    CHECK(cudaIpcGetEventHandle(&handles[1], freed));
    if (!send_all(sock, handles, sizeof handles)) { fprintf(stderr, "exporter: cannot send the events\\n"); return 1; }
""",
  """    CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming | cudaEventInterprocess));
    CHECK(cudaEventCreateWithFlags(&freed, cudaEventDisableTiming | cudaEventInterprocess));
    cudaIpcEventHandle_t handles[2];
    CHECK(cudaIpcGetEventHandle(&handles[0], filled));
    CHECK(cudaIpcGetEventHandle(&handles[1], freed));
    if (!send_all(sock, handles, sizeof handles)) { fprintf(stderr, "exporter: cannot send the events\\n"); return 1; }
    bool sent = send_fd(sock, fd);
    close(fd);
    if (!sent) { fprintf(stderr, "exporter: cannot send the pool\\n"); return 1; }
""")

# ---------------------------------------------------------------- heap-vs-pool
W("heap-vs-pool", "fit-test-refuses-a-list-that-ends-the-slice-exactly",
  "other arguments only, and barely: a list that would end exactly at the stride goes to the heap; inspect's room test uses sliceBytes, so it counts such a block ('blocks that sent a list to the heap while their slice had room for it' > 0) only when sliceBytes is itself a multiple of 4 KiB (the stride then equals it) and some block's run lands on its end exactly; in the default run (sliceBytes 26803) nothing shows",
  "take keeps a list only when old + size < stride, not <=",
  "a list that ends on the slice's last byte fits; the strict test throws away the last list's room at an exact multiple",
  "own",
  "    if (at + size <= a.stride) return",
  "    if (at + size < a.stride) return")
W("heap-vs-pool", "arena-last-taken-as-the-last-slices-start",
  "the record and the program's own output: in_arena ends at the last slice's first byte, so every list of the last block but its first is taken for a heap list: give_back hands arena memory to the device free (a free of memory malloc never gave: an error in the record, or a fault that stops the program), 'lists from the heap: some' counts them, and inspect, which sees the last block's slice holding one list while it 'sent' the rest to the heap, counts that block in 'blocks that sent a list to the heap while their slice had room for it' (1 a round, 4 by default); the sums most likely right",
  "make_arena stores as the arena's last byte the start of the last slice, buf + (blocks - 1) x stride, instead of the buffer's last byte",
  "the last slice runs a whole stride past its start; in_arena must cover it to its end, or the last block's lists are given back to the heap",
  "own",
  "    a->last = (uintptr_t)buf + total - 1;",
  "    a->last = (uintptr_t)buf + (blockBytes.size() - 1) * stride;")
W("heap-vs-pool", "offset-moved-by-the-unrounded-size",
  "the program's own output: 'off a 16-byte boundary' is most of the arena's lists (each starts where the one before ended, a multiple of 4 bytes only); no overlap, the sums right",
  "take moves the shared offset by the list's bytes as asked, not by the size rounded up to 16, while it tests the fit with the rounded size",
  "each list must start on a 16-byte boundary; the offset has to move by the rounded size so that the next list starts on one",
  "own",
  "    const unsigned long long at = atomicAdd(used, size);",
  "    const unsigned long long at = atomicAdd(used, (unsigned long long)bytes);")
W("heap-vs-pool", "shared-offset-never-zeroed",
  "the program's own output (and the record: a read of shared memory never written): each block starts from whatever its shared offset's place held, most often a block before's final offset, past the stride, so most lists go to the heap ('lists from the heap' all or nearly), the heap, sized for the spill only, runs out ('lists without memory' > 0) and rounds sum wrong",
  "build_lists declares the shared offset and meets the barrier but never sets it to 0, 'shared memory starts at zero'",
  "shared memory is not cleared between blocks or launches; the offset must be zeroed by one thread before the barrier",
  "own",
  "    if (threadIdx.x == 0) used = 0;\n",
  "")

# ---------------------------------------------------------------- stream-pools
W("stream-pools", "place-summed-over-lanes-that-did-not-ask",
  "the program's own output: in every warp with a gap among its asking lanes the blocks are not one run ('warps given one run of blocks in lane order' well short of 1024), places past the run overlap the next warp's blocks ('overlapping blocks' > 0 where they land on the next warp's run), the leader's run length grows by the same stale sizes, so 'pool use read in stream order' falls short of 32 and pools can fill early (failed > 0); the gap lanes' slots hold what an earlier block left in shared memory, or whatever it held",
  "each lane adds up the row's slots of EVERY lane below it, not only those of the lanes in the mask",
  "lanes that ask for nothing, or have left, never write their slot in this call: their slots hold old sizes, which push the places (and the run's length) out",
  "own",
  "        if (mask & (1u << j)) place += row[j];",
  "        place += row[j];")
W("stream-pools", "start-read-without-a-warp-barrier",
  "race: the record (lanes read the row's start slot before the leader has written it: a read-after-write hazard in shared memory); the program's own output now and then: lanes that read the start of the warp's previous call, or garbage, get blocks in the wrong place (overlapping blocks, runs not in lane order, or null where the run fitted)",
  "the __syncwarp(mask) between the leader's write of the run's start and the other lanes' read of it is left out, 'the warp runs in lock step'",
  "since Volta the lanes of a warp are scheduled independently: the lanes that skipped the leader's branch may read the slot before the leader has written it; only a __syncwarp orders the write before the reads",
  "own",
  """    }
    __syncwarp(mask);
    const unsigned long long start = row[kWarp];""",
  """    }
    const unsigned long long start = row[kWarp];""")
W("stream-pools", "counters-read-back-with-a-blocking-copy",
  "the record: a host wait at every used() (a synchronous cudaMemcpy); and the program's own output: the copy runs on the legacy stream, which does not wait for the pools' non-blocking streams, so it reads the counters before the round's work (and its reset) are done: 'pool use read in stream order' well short of 32, high-water marks short too, the overflow line wrong",
  "used() copies the counters with cudaMemcpy, 'the host needs them anyway', instead of cudaMemcpyAsync on s",
  "used() must read the counters in s's order without making the host wait; a plain cudaMemcpy is neither: it blocks the host and is not ordered after work on a non-blocking stream",
  "related: ROCm/pytorch#3194 (a read on one stream that does not wait for another stream's write sees the state before it)",
  "        CHECK(cudaMemcpyAsync(to, counters(i), sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));",
  "        CHECK(cudaMemcpy(to, counters(i), sizeof(PoolCounters), cudaMemcpyDeviceToHost));")
W("stream-pools", "slice-starts-on-its-own-counters",
  "the program's own output: each pool's first block lies over its own counters, and its 16-byte first store (t, round, stream, n) overwrites offset and high: offsets jump, blocks overlap, 'pool use read in stream order' 0 of 32 (or nearly), the overflow line wrong",
  "pool(i) gives as base the start of pool i's stretch of the arena, where its counters sit, without adding the 256-byte header",
  "in this layout a pool's slice begins right AFTER its counters block; the slice and the counters must not share bytes",
  "own",
  "        return DevicePool{arena_ + (size_t)i * (kHeader + slice_) + kHeader, slice_, counters(i)};",
  "        return DevicePool{arena_ + (size_t)i * (kHeader + slice_), slice_, counters(i)};")
