"""Writes the public-source wrong answers (review/public/MANIFEST.md) as
patches of their exercises' solutions: python3 review/public/gen.py from
the course's root. Each entry is the solution with named edits (old text,
new text), so a patch differs from its solution only where its header
says; run it again after a solution changes."""
import os, subprocess, sys

E = []  # (solution, wrong dir, name, header lines, [(old, new)])


def entry(sol, exercise, name, expect, kind, mistake, why, source, edits):
    day = sol.split('/')[1]
    E.append((sol, f"solutions/{day}/wrong/{exercise}", name,
              [f"// expect: {expect}", f"// kind: {kind}", f"// mistake: {mistake}",
               f"// why it is wrong: {why}", f"// source: {source}"], edits))


AP, CS, SP, VG, GA, PR, IP = ("solutions/day069/async_pipeline.cu", "solutions/day070/cross_stream.cu",
                              "solutions/day071/strict_pool.cu", "solutions/day072/growable.cu",
                              "solutions/day074/graph_alloc.cu", "solutions/day069/pool_reuse.cu",
                              "solutions/day073/ipc_pool.cu")

entry(AP, "async-pipeline", "public_cudafree_assumed_to_wait",
      "every buffer from cudaMallocAsync is freed with cudaFreeAsync", "a free assumed to wait",
      "The iteration's buffers are given back with cudaFree, on the belief that cudaFree waits for the kernels using them. For memory from cudaMallocAsync it does not: the runtime frees it at once, while the stream's copy and kernels may still use it.",
      "CUDA runtime API, cudaFree: no implicit synchronisation for pointers from cudaMallocAsync; the caller must make sure every access is done. Day 70: free in the stream's order with cudaFreeAsync.",
      "https://github.com/kokkos/kokkos/issues/9307",
      [("    CHECK(cudaFreeAsync(d_out, s));\n    CHECK(cudaFreeAsync(d_partial, s));\n",
        "    CHECK(cudaFree(d_out));\n    CHECK(cudaFree(d_partial));\n")])

entry(AP, "async-pipeline", "public_alloc_on_default_stream",
      "nothing runs on the default stream", "allocated on another stream than the work",
      "The buffers are allocated with cudaMallocAsync on stream 0 (the call's stream argument left as 0) while the copies and kernels run on the iteration's non-blocking stream: the allocation is not ordered before its uses.",
      "Day 70: a stream-ordered allocation is usable on its stream once the allocation is reached; another stream must be ordered after it. Non-blocking streams are not ordered with the legacy stream.",
      "https://github.com/NVIDIA/AMGX/pull/262 (the pool's cudaMallocAsync/cudaFreeAsync moved to the stream the work runs on)",
      [("    CHECK(cudaMallocAsync(&d_in, bytes, s));\n    CHECK(cudaMallocAsync(&d_out, bytes, s));\n",
        "    CHECK(cudaMallocAsync(&d_in, bytes, 0));\n    CHECK(cudaMallocAsync(&d_out, bytes, 0));\n")])

entry(CS, "cross-stream", "public_free_on_allocating_stream",
      "does not include the buffer's last use", "freed on the allocating stream, used on others",
      "The values are freed on the load stream, where they were allocated, once both squares are queued, as a wrapper that remembers the allocation's stream frees it: the two work streams that read them are not waited for.",
      "Day 70 exercise, TODO 5: the values may be freed only on a stream whose order includes both reads. A free on the allocating stream orders after that stream's work alone.",
      "https://github.com/NVlabs/cuda-oxide/issues/619",
      [("        CHECK(cudaStreamWaitEvent(work_[1], worked_[0], 0));\n        CHECK(cudaFreeAsync(ch.raw, work_[1]));\n",
        "        CHECK(cudaFreeAsync(ch.raw, load_));\n")])

entry(CS, "cross-stream", "public_free_after_one_reader",
      "does not include the buffer's last use", "a free ordered after one of several users",
      "The values are freed on the second work stream after its own square, without waiting for the first half's event: cudaFreeAsync takes one stream, and the other stream's read is not in its order.",
      "Day 70 exercise, TODO 5: a buffer used on several streams is freed on a stream made to wait for every one of them (an event from each).",
      "https://github.com/pytorch/pytorch/pull/65365 (the review thread on freeing a pointer used on several streams)",
      [("        CHECK(cudaStreamWaitEvent(work_[1], worked_[0], 0));\n        CHECK(cudaFreeAsync(ch.raw, work_[1]));\n",
        "        CHECK(cudaFreeAsync(ch.raw, work_[1]));\n")])

entry(CS, "cross-stream", "public_one_event_many_streams",
      "was ordered before it", "one event recorded on several streams",
      "Both halves record the same event and the reduce stage waits for it once, as if it stood for both records: a wait takes only the latest record, so the reduce may read the first half's squares before they are written.",
      "CUDA runtime API, cudaEventRecord: a record overwrites the event's state, and later waits see only the latest one. Day 70: one event per stream to wait for.",
      "https://github.com/torch/cutorch/pull/222",
      [("    CHECK(cudaEventRecord(worked_[half], work_[half]));\n", "    CHECK(cudaEventRecord(worked_[0], work_[half]));\n"),
       ("    CHECK(cudaStreamWaitEvent(reduce_, worked_[0], 0));\n    CHECK(cudaStreamWaitEvent(reduce_, worked_[1], 0));\n",
        "    CHECK(cudaStreamWaitEvent(reduce_, worked_[0], 0));\n")])

entry(CS, "cross-stream", "public_free_on_legacy_stream",
      "does not include the buffer's last use", "freed on the legacy default stream",
      "The sums are freed with cudaFreeAsync on stream 0 after their copy is queued on the copy stream, as a free on the legacy stream 'waits for everything': it does not wait for non-blocking streams, so the copy may read freed memory.",
      "Day 70: the pipeline's streams are non-blocking, never ordered with the legacy stream; free on the stream of the buffer's last use.",
      "https://github.com/ai-dynamo/nixl/pull/965 (cudaFree replaced by cudaFreeAsync on stream 0 while another stream's kernel runs)",
      [("    CHECK(cudaFreeAsync(ch.partial, copy_));\n", "    CHECK(cudaFreeAsync(ch.partial, 0));\n")])

entry(SP, "strict-pool", "public_free_on_legacy_stream",
      "may still be using", "freed on the legacy default stream",
      "put gives the block back with cudaFreeAsync(p, nullptr), the legacy default stream, whatever stream it is given: no stream of the program's uses it, and the non-blocking streams that fill and sum the block are not ordered with it.",
      "Day 71, put: 'the block back to the pool, in s's order', after the work queued on s, which may still be using it.",
      "https://github.com/supranational/sppark/pull/81",
      [("    note(cudaFreeAsync(p, s));\n", "    (void)s;\n    note(cudaFreeAsync(p, nullptr));\n")])

entry(SP, "strict-pool", "public_free_on_pool_stream",
      "may still be using", "freed on a stream of the pool's own",
      "put frees on a non-blocking stream the pool made for itself, fire and forget, as a pool that owns its stream does: nothing orders that stream after the kernels that still use the block on the caller's stream.",
      "Day 71, put: the block goes back in s's order. A free on another stream must be ordered after the block's last use (an event), or the pool may hand it out while it is in use.",
      "https://github.com/rapidsai/rmm/issues/2156 and https://github.com/autowarefoundation/cuda_blackboard/pull/22",
      [("    note(cudaFreeAsync(p, s));\n",
        "    (void)s;\n    static cudaStream_t own = nullptr;\n    if (own == nullptr) note(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));\n    note(cudaFreeAsync(p, own));\n")])

entry(SP, "strict-pool", "public_wait_queued_before_record",
      "B should get the block A freed in every round", "a wait queued before the record it means",
      "hand makes `to` wait for the event first and records it on `from` after: the wait takes the record the event held when it was queued (the previous round's, or none), so B is not ordered after A's put.",
      "CUDA runtime API, cudaStreamWaitEvent: it waits for the most recent record made before the call; Day 71, hand: record on from, then wait on to.",
      "https://github.com/sgl-project/sglang/pull/14214",
      [("    note(cudaEventRecord(handed_, from));\n    note(cudaStreamWaitEvent(to, handed_, 0));\n",
        "    note(cudaStreamWaitEvent(to, handed_, 0));\n    note(cudaEventRecord(handed_, from));\n")])

entry(VG, "vmm-growable", "public_access_before_map",
      "runs to the end", "a range used before it is mapped",
      "The new chunk's access is set before it is mapped (the range is reserved, so it seems ready): cuMemSetAccess on addresses with no mapping fails, and grow returns false.",
      "Day 72: reserve, create, map, then set access; a range is usable only once mapped and opened.",
      "https://github.com/microsoft/mscclpp/pull/631 (a cudaMemset moved after the mapping it needs)",
      [("        if (cuMemMap(base_ + mapped_, more, 0, h, 0) != CUDA_SUCCESS) {\n            cuMemRelease(h);\n            return false;\n        }\n        if (cuMemSetAccess(base_ + mapped_, more, &access_, 1) != CUDA_SUCCESS) {\n            cuMemUnmap(base_ + mapped_, more);\n            cuMemRelease(h);\n            return false;\n        }\n",
        "        if (cuMemSetAccess(base_ + mapped_, more, &access_, 1) != CUDA_SUCCESS) {\n            cuMemRelease(h);\n            return false;\n        }\n        if (cuMemMap(base_ + mapped_, more, 0, h, 0) != CUDA_SUCCESS) {\n            cuMemRelease(h);\n            return false;\n        }\n")])

entry(GA, "graph-alloc", "public_escaping_alloc_no_auto_free",
      "runs to the end", "a graph's allocation escapes it, relaunched without a free",
      "produce is instantiated with no flags although its `out` is never freed in the graph: the second launch finds the first launch's allocation still there, and a graph with an unfreed allocation cannot be launched again.",
      "Day 74: an allocation that leaves its graph is freed by cudaFreeAsync, a free node, or cudaGraphInstantiateFlagAutoFreeOnLaunch (each launch frees what the last one allocated).",
      "https://github.com/JuliaGPU/CUDA.jl/issues/1230",
      [("cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch)",
        "cudaGraphInstantiateWithFlags(&produce, produce_graph, 0)")])

entry(GA, "graph-alloc", "public_auto_free_read_elsewhere",
      "may still use it", "an auto-freed allocation read on another stream",
      "Each launch's `out` is summed on s2 (after an event from s), while the next launch of produce on s frees it (AutoFreeOnLaunch): nothing orders that launch after s2's sum, so the sum may read memory the next launch freed and allocated again.",
      "Day 74: with cudaGraphInstantiateFlagAutoFreeOnLaunch each launch frees the last launch's allocation: every use of it must be ordered before the next launch.",
      "https://github.com/NVIDIA/cccl/pull/9394 (auto-free on launch for graphs whose allocations are used outside them)",
      [("        sum<<<256, 256, 0, s>>>(out, n, totals + 1);\n",
        "        CHECK(cudaEventRecord(join, s));\n        CHECK(cudaStreamWaitEvent(s2, join, 0));\n        sum<<<256, 256, 0, s2>>>(out, n, totals + 1);\n")])

entry(PR, "pool-reuse", "public_sync_to_give_back",
      "after the work the pool should hold nothing", "a synchronisation expected to give memory back",
      "finish waits for the device instead of trimming, as cudaFree used to synchronise and release: a pool keeps what its release threshold allows across a synchronisation, so it still holds the narrow phase's memory at the end.",
      "Day 70: the release threshold decides what a synchronisation gives back; cudaMemPoolTrimTo(pool, 0) gives back everything unused.",
      "https://github.com/cupy/cupy/issues/3777",
      [("    CHECK(cudaMemPoolTrimTo(pool, 0));\n    // STUB\n    // END SOLUTION\n    return 0;\n}\n",
        "    (void)pool;\n    CHECK(cudaDeviceSynchronize());\n    // STUB\n    // END SOLUTION\n    return 0;\n}\n")])


# Q&A and forum threads (issue 36, second pass): students' own mistakes.
HO, PRS, HP, ST, PP = ("solutions/day077/handoff.py", "solutions/day076/pool_resource.h",
                       "solutions/day086/heap_vs_pool.cu", "solutions/day087/stream_pools.cu",
                       "solutions/day075/peer_pool.cu")

entry(AP, "async-pipeline", "public_values_copied_back_blocking",
      "cudaMemcpy waits on the host", "a blocking copy back after a kernel on another stream",
      "submit brings the scaled values back with cudaMemcpy, the blocking copy, after scale and checksum are queued on the iteration's stream, as if the copy waited for that stream's kernels: it runs on the legacy default stream, which no non-blocking stream is ordered with, and the host waits in submit for every iteration.",
      "CUDA runtime API, stream synchronisation behaviour: a non-blocking stream is not ordered with the legacy default stream; Day 69, submit: nothing waits on the host, every copy is cudaMemcpyAsync on the iteration's stream.",
      "https://forums.developer.nvidia.com/t/cpu-spins-while-waiting-for-gpu-to-finish-computation/241672 (a kernel queued on a stream, its result read back with cudaMemcpy; the reply: cudaMemcpy is the blocking copy, cudaMemcpyAsync on the stream is the one that does not wait)",
      [("    CHECK(cudaMemcpyAsync(out_ + off, d_out, bytes, cudaMemcpyDeviceToHost, s));\n",
        "    CHECK(cudaMemcpy(out_ + off, d_out, bytes, cudaMemcpyDeviceToHost));\n")])

entry(AP, "async-pipeline", "public_malloc_free_in_stream_loop",
      "cudaMalloc should not be called", "cudaMalloc and cudaFree between the streams' launches",
      "The scaled values' buffer comes from cudaMalloc and goes back with cudaFree at the end of submit, the pattern of a loop that launches one stream's work per pass and frees what it allocated to stop a leak: cudaFree waits for the whole device, so each iteration's stream waits for every earlier one and the streams no longer overlap.",
      "CUDA C++ Programming Guide, implicit synchronisation: a device memory allocation or free between two streams' commands keeps them from running at once; Day 69: allocate and free in the stream's order (cudaMallocAsync, cudaFreeAsync).",
      "https://forums.developer.nvidia.com/t/device-memory-allocation-implicit-synchronization/110906 (the streams' kernels ran side by side until a cudaFree was added to the loop to fix its leak; then they ran one after another)",
      [("    CHECK(cudaMallocAsync(&d_out, bytes, s));\n", "    CHECK(cudaMalloc(&d_out, bytes));\n"),
       ("    CHECK(cudaFreeAsync(d_out, s));\n", "    CHECK(cudaFree(d_out));\n")])

entry(HO, "python-handoff", "public_gc_collect_to_give_back",
      "still held memory", "deleting and collecting expected to give memory back",
      "release runs Python's garbage collector where it should empty PyTorch's cache, on the belief that a tensor deleted and collected gives its memory back to the device: the allocator keeps the freed blocks (with the cudaMallocAsync backend, in CUDA's pool, whose release threshold PyTorch sets to the maximum), so the pool still holds them at the end.",
      "PyTorch, CUDA memory management: memory freed by tensors stays with the caching allocator for reuse; torch.cuda.empty_cache() gives back what no tensor uses. Day 77, release: hand back what the allocator holds.",
      "https://discuss.pytorch.org/t/how-to-delete-pytorch-objects-correctly-from-memory/947 (a CUDA tensor deleted with del, its memory 'not freed up'; the answer: the caching allocator keeps it)",
      [("    torch.cuda.empty_cache()\n", "    import gc\n    gc.collect()\n")])

entry(PRS, "pool-resource", "public_free_block_of_any_stream",
      "may still be using", "a block freed on one stream handed to another, unordered",
      "allocate takes the smallest free block that fits whichever stream freed it, and hands it out at once, as a caching allocator that shared its free blocks among streams would: nothing orders the asking stream after the work the freeing stream may still be doing with the block.",
      "Day 76, allocate: a block freed on another stream is handed out only after the asking stream waits for that stream's event (cudaStreamWaitEvent); a block this stream freed itself needs no wait and comes first.",
      "https://discuss.pytorch.org/t/why-cudacachingallocator-limited-block-shareing-inside-stream/140069 (why a free block of one stream cannot be used by another), and https://discuss.pytorch.org/t/memory-mamagement/166162",
      [("            if (it->n >= n && (best == free_.end() || ((it->stream == s) != (best->stream == s) ? it->stream == s : it->n < best->n))) best = it;\n",
        "            if (it->n >= n && (best == free_.end() || it->n < best->n)) best = it;\n"),
       ("            if (b.stream != s) CHECK(cudaStreamWaitEvent(s, event_of(b.stream), 0));\n", "")])

entry(HP, "heap-vs-pool", "public_heap_limit_per_thread",
      "heap limit fits", "the device heap's limit taken for one thread's",
      "make_arena sets the heap's limit to what one thread may malloc (the largest list, with the same room for bookkeeping), reading cudaLimitMallocHeapSize as a limit for each thread: it is the size of the one heap every thread of every block allocates from, so the lists that spill from all the slices at once do not fit.",
      "CUDA C++ Programming Guide, heap memory allocation: the device heap has a fixed size for the whole context, set with cudaDeviceSetLimit(cudaLimitMallocHeapSize) before the first kernel that calls malloc; Day 86: size it for the lists that do not fit in their slices.",
      "https://stackoverflow.com/questions/13150618/understanding-gpu-heap-memory-and-resident-warps (read at https://kiwix.lema.org/stackoverflow.com_en_all_2023-11/questions/13150618/understanding-gpu-heap-memory-and-resident-warps; the answer: the limit is for the whole device context, not per thread)",
      [("    // A block's lists that fit take at least slice - largest of it: the\n    // rest, at most, come from the heap.\n    size_t spill = 0;\n    for (size_t b : blockBytes) spill += b + largest > a->slice ? b + largest - a->slice : 0;\n    // Room as large again for malloc's own bookkeeping, and a little more.\n    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (4u << 20));\n",
        "    // The heap's limit is what one thread may malloc: the largest list,\n    // room as large again for malloc's own bookkeeping, and a little more.\n    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * largest + (4u << 20));\n")])

entry(ST, "stream-pools", "public_refusals_counted_with_plain_add",
      "a pool counts every request it refuses", "a shared counter moved with a plain += from many threads",
      "The leader of a refused warp adds its asking lanes to the pool's count of refusals with a plain +=, on the belief that concurrent writes to one global word are serialised by the hardware: the leaders of many refused warps read the same old count and write back their own sums, and updates are lost.",
      "CUDA C++ Programming Guide, atomic functions: a read-modify-write of global memory by several threads at once is a race unless it is atomic; Day 87: the lane that does the atomics keeps the counters with atomics.",
      "https://forums.developer.nvidia.com/t/threads-and-race-condition/17052 (many threads' gmem[...] += val assumed serialised; the reply: that is what atomic functions are for)",
      [("        else atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask));\n",
        "        else p.counters->failed += __popc(mask);\n")])

entry(VG, "vmm-growable", "public_old_range_freed_still_mapped",
      "runs to the end", "an address range freed while its mappings are kept",
      "After mapping the chunks at the new addresses the move frees the old reservation without unmapping it first, on the belief that a reservation, like a physical allocation released with cuMemRelease, lives on until its last mapping goes: cuMemAddressFree refuses a range that is still mapped, and grow fails.",
      "CUDA driver API, virtual memory management: a handle may be released while mapped, an address range may not be freed while mapped; Day 72: unmap, release, then free the addresses.",
      "https://stackoverflow.com/questions/70604546/must-i-keep-a-virtual-address-range-reservation-if-it-has-active-mappings (read at https://kiwix.lema.org/stackoverflow.com_en_all_2023-11/questions/70604546/must-i-keep-a-virtual-address-range-reservation-if-it-has-active-mappings)",
      [("            offset = 0;\n            for (const Chunk& c : chunks_) {\n                CU(cuMemUnmap(base_ + offset, c.bytes));\n                offset += c.bytes;\n            }\n            CU(cuMemAddressFree(base_, reserved_));\n",
        "            CU(cuMemAddressFree(base_, reserved_));\n")])

entry(PP, "peer-pool", "public_cross_device_order_by_stream_sync",
      "the host waits once for each device's stream", "two devices ordered by a host wait on the producer's stream",
      "one_round orders device 0's reduce after device 1's produce by synchronising device 1's stream on the host, as a cross-device barrier, instead of making device 0's stream wait for the produced event: the order holds, through the host, which stands still every round, and device 1 can no longer run ahead.",
      "CUDA runtime API, cudaStreamWaitEvent: the event may be of another device, the wait is on the GPU; Day 75: no host waits in the rounds, a stream of the other device waits for the event.",
      "https://github.com/intel/llvm/commit/53feba858523e3518c2cc26bfc39d44b148f7d48 (read at https://app.semanticdiff.com/gh/intel/llvm/commit/53feba858523e3518c2cc26bfc39d44b148f7d48: 'cuEventSynchronize alone is insufficient ... Use cuStreamSynchronize to establish this barrier')",
      [("    CHECK(cudaStreamWaitEvent(t.s[0], t.produced, 0));\n", "    CHECK(cudaStreamSynchronize(t.s[1]));\n")])



# Issue 36, third pass: the exercises the first two had no answer from a
# thread for (block-pool, pool-reuse, strict-pool, cross-stream,
# graph-alloc, ipc-pool, stream-ordered-pool).
BP, SOP = "solutions/day068/block_pool.cu", "solutions/day088/stream_ordered_pool.h"

entry(BP, "block-pool", "public_give_back_recorded_without_its_stream",
      "while work queued on another stream may still use it", "an event recorded without the stream the work runs on",
      "deallocate records the block's event with cudaEventRecord(done) alone, the stream argument left to its default, as timing code records its events: the record goes on the legacy default stream, which none of the requests' non-blocking streams is ordered with, so the event completes at once and allocate hands the block out while the kernel that used it still runs.",
      "CUDA runtime API, cudaEventRecord: the event captures the work of the stream it is recorded on (stream 0 when none is given); non-blocking streams are not ordered with the legacy default stream. Day 68, deallocate: record the block's event on the stream given, after the work that uses the block.",
      "https://github.com/csarofeen/pytorch/pull/2521 ('Kernels are not necessarily launched on the default stream ... we need to record the start/end events on the stream where kernels are launched')",
      [("    if (cudaEventRecord(done_[b], stream) != cudaSuccess) return false;\n",
        "    if (cudaEventRecord(done_[b]) != cudaSuccess) return false;\n")])

entry(PR, "pool-reuse", "public_settings_on_the_default_pool",
      "a pool setting was made on a pool no allocation came from", "the device's default pool taken for the pool in use",
      "enter_phase sets the release threshold on the pool cudaDeviceGetDefaultMemPool names, as code written for cudaMallocAsync's pool does, while every round allocates from the program's own pool (cudaMallocFromPoolAsync): the pool in use keeps its threshold of 0, gives back at each synchronisation what the phase would reuse, and the report's threshold is 0.",
      "CUDA runtime API, memory pools: each pool has its own attributes; the device's default pool is the one cudaMallocAsync uses only while no other pool is made current, and cudaMallocFromPoolAsync names its pool. Day 69: set the policy on the pool the rounds allocate from.",
      "https://github.com/cupy/cupy/pull/5191 (CuPy's async pool used the device's 'default' pool handle while the allocations came from the 'current' one another library had set: 'a defect if not a bug')",
      [("    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));\n",
        "    cudaMemPool_t device_pool = nullptr;\n    CHECK(cudaDeviceGetDefaultMemPool(&device_pool, 0));\n    CHECK(cudaMemPoolSetAttribute(device_pool, cudaMemPoolAttrReleaseThreshold, &threshold));\n")])

entry(PR, "pool-reuse", "public_threshold_kept_at_the_maximum",
      "the threshold should be what the phase reserved at its peak", "the release threshold raised to the maximum",
      "enter_phase sets the release threshold to UINT64_MAX, so that the pool never gives back what it frees, as libraries do for their pools, and trims to the phase's peak: the pool then keeps across synchronisations whatever the phase's rounds free, more than the peak whenever a round reserves more, and the threshold it reports (read back from the pool) is not the phase's peak.",
      "CUDA runtime API, cudaMemPoolAttrReleaseThreshold: what a pool keeps across a synchronisation; Day 69, enter_phase: keep what the phase's rounds reserve and no more.",
      "https://github.com/kekzl/imp/pull/915 (the default pool's threshold raised to UINT64_MAX parked freed weights in the pool until a later upload ran out of memory)",
      [("    uint64_t threshold = peak, zero = 0;\n", "    uint64_t threshold = UINT64_MAX, zero = 0;\n")])

entry(SP, "strict-pool", "public_pool_made_the_devices_current",
      "the program made its pool the device's current pool", "the pool made the device's current one for cudaMallocAsync",
      "The constructor makes the strict pool the device's current pool (cudaDeviceSetMemPool) and get allocates with cudaMallocAsync, as an allocator that creates its own pool 'and sets it as the default' does: every cudaMallocAsync of the process, any library's, now comes from a pool with its reuse policies turned off.",
      "CUDA runtime API, cudaDeviceSetMemPool: the current pool is the device's, for every caller of cudaMallocAsync in the process; Day 71: allocate from the pool by name with cudaMallocFromPoolAsync and leave the device's current pool alone.",
      "https://github.com/rapidsai/rmm/pull/676 (review: 'creating our own cudaMemPool_t with cudaMemPoolCreate and setting it as the default pool'; https://github.com/rapidsai/rmm/pull/752 then allocated 'from the explicit pool object without setting it as the new default')",
      [("    note(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));\n",
        "    note(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));\n    note(cudaDeviceSetMemPool(device, pool_));\n"),
       ("    cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_, s);\n", "    cudaError_t e = cudaMallocAsync(&p, bytes, s);\n")])

entry(CS, "cross-stream", "public_loaded_recorded_on_the_null_stream",
      "nothing runs on the default stream", "an event recorded on the NULL stream, the work on another",
      "The load stage records `loaded` with cudaEventRecord(loaded) alone, on the NULL stream, as code that assumes its events are recorded there does: the generate kernel runs on the non-blocking load stream, which the legacy stream is not ordered with, so the squares' streams wait for an event that says nothing about the values and may read them before they are written.",
      "CUDA runtime API, cudaEventRecord: the record marks the work of the stream given (stream 0 by default); Day 70: record each stage's event on the stream that did its work.",
      "https://github.com/libocca/occa/issues/378 ('Events in a non NULL stream are not recognized': events implicitly assumed to take place in the NULL stream)",
      [("    CHECK(cudaEventRecord(loaded_, load_));\n", "    CHECK(cudaEventRecord(loaded_));\n")])

entry(GA, "graph-alloc", "public_last_out_left_to_exec_destroy",
      "allocations never freed", "the last launch's allocation left to the executable graph's destruction",
      "The last launch's `out` is not freed: the program relies on destroying produce's executable graph (and on auto-free on launch) to give it back. Auto-free frees only the allocation of the launch before, and destroying an executable graph does not free its live allocations, so `out` stays allocated and the trim cannot give its memory back.",
      "CUDA C++ Programming Guide, graph memory nodes: graph destruction does not free live graph allocations; one that leaves its graph is freed with cudaFreeAsync, cudaFree or a free node. Day 74, TODO 4: free the last out, then destroy the graphs and trim.",
      "https://github.com/NVIDIA/warp/issues/1429 ('cudaGraphInstantiateFlagAutoFreeOnLaunch frees the previous launch's allocation but NOT the final one, and cuGraphExecDestroy doesn't clean up the live graph allocations either')",
      [("    CHECK(cudaFreeAsync(out, s));\n    CHECK(cudaGraphExecDestroy(step));\n", "    CHECK(cudaGraphExecDestroy(step));\n")])

entry(GA, "graph-alloc", "public_trim_before_the_free_is_done",
      "made before the host waited for a queued free", "a trim while the free it needs is still queued",
      "TODO 4 trims the graph memory right after queueing the last free and destroying the graphs, and waits for the stream after it, as if the trim waited for the queued free: the free is behind the busy kernel, so the trim finds `out` still allocated and gives back nothing of it.",
      "CUDA runtime API, cudaDeviceGraphMemTrim (and cudaMemPoolTrimTo): only memory not in use is given back, and a queued free has not happened until the stream reaches it; Day 74: wait for the free, then trim.",
      "https://github.com/pytorch/executorch/pull/22312 ('with a free still pending the trim recovered 0 of 256 MiB, and one stream synchronize recovered all of it')",
      [("    CHECK(cudaStreamSynchronize(s));\n    CHECK(cudaDeviceGraphMemTrim(device));\n",
        "    CHECK(cudaDeviceGraphMemTrim(device));\n    CHECK(cudaStreamSynchronize(s));\n")])

entry(SOP, "stream-ordered-pool", "public_give_back_recorded_on_stream_zero",
      "a stream used a block that another stream's kernels may still be using", "a give-back's event recorded on stream zero",
      "deallocate records the block's event on stream 0, on the belief that an event recorded in the default stream covers the work of every other stream, as it does for blocking streams: the harness's streams are non-blocking, so the event covers none of their kernels, and a stream that steals the block waits for nothing.",
      "CUDA runtime API, stream synchronisation behaviour: the legacy default stream is ordered with blocking streams only, never with streams made with cudaStreamNonBlocking; Day 88, deallocate: record on the stream that freed the block.",
      "https://github.com/alpaka-group/cupla/issues/66 ('A event recorded event in the default stream zero ... is not blocking all other streams')",
      [("        CHECK(cudaEventRecord(e, s));\n", "        CHECK(cudaEventRecord(e, 0));\n")])


entry(BP, "block-pool", "public_blocks_aligned_to_the_widest_type",
      "every block must start on a 256-byte boundary", "blocks aligned to the widest element, not to 256 bytes",
      "init rounds each block up to 16 bytes, the widest vector a kernel loads (a float4), on the belief that the 256-byte alignment of cudaMalloc's allocations is the allocator's own business and that a block need only be aligned to its largest element: a 1000-byte block then starts 1008 bytes after the one before, off the 256-byte boundary every cudaMalloc'd block would have, and the pool is smaller than its blocks rounded as the day asks.",
      "CUDA C++ Programming Guide, device memory accesses: what the allocation routines return is aligned to at least 256 bytes, and code written for cudaMalloc'd buffers may count on it; Day 68, init: each block its class's size rounded up to kAlign (256), so that a block is as aligned as a cudaMalloc of its own.",
      "https://stackoverflow.com/questions/64877647/why-are-cuda-memory-allocations-aligned-to-256-bytes (read at https://wiki.gubat.org/content/stackoverflow.com_en_all_2023-11/questions/64877647/why-are-cuda-memory-allocations-aligned-to-256-bytes: '256 bytes is much larger than any numeric data type ... every individual element may be placed at any memory address that is a multiple of the size of the element')",
      [("        total += (classBytes[b / blocks] + kAlign - 1) / kAlign * kAlign;\n",
        "        total += (classBytes[b / blocks] + 15) / 16 * 16;   // a float4's alignment\n")])



# Issue 36, fourth pass: the exercises with the fewest answers from a
# source (stream-pools, pool-resource, heap-vs-pool, peer-pool,
# python-handoff, block-pool), from sources no wrong answer cites yet.
entry(ST, "stream-pools", "public_counters_cleared_with_cudaMemset",
      "cudaMemset runs on the legacy default stream", "the counters cleared with cudaMemset before work on non-blocking streams",
      "init clears the pools' counters with one cudaMemset, on the belief that the legacy default stream's in-order semantics put the clearing before whatever comes next: cudaMemset runs on the legacy stream, which the pools' non-blocking streams do not wait for, so a pool's first kernel may allocate from counters not yet cleared (and the clearing may land on counters the kernel already moved).",
      "CUDA runtime API, stream synchronisation behaviour: streams made with cudaStreamNonBlocking are not ordered with the legacy default stream; Day 87, init: pool i's counters start at 0 in the order of streams[i], cleared with cudaMemsetAsync there.",
      "https://github.com/ai-dynamo/nixl/issues/773 (a buffer set with cudaMemset, 'assuming the default stream's in-order semantics', then used by a transfer on a non-blocking stream that does not wait for it; the maintainers: add a synchronisation)",
      [("        for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));\n",
        "        (void)streams;\n        CHECK(cudaMemset(counters_, 0, n * sizeof(PoolCounters)));   // in order before any later work\n")])

entry(ST, "stream-pools", "public_reset_memset_stream_left_out",
      "run on the pools' streams, not on the default stream", "a cudaMemsetAsync whose stream argument is left out",
      "reset clears the pool's offset with cudaMemsetAsync(&offset, 0, size) and no fourth argument, as a call next to other stream-ordered calls can lose its stream: the stream defaults to 0, the legacy default stream, so the reset is ordered neither after the round before on s nor before the next, and may land while a kernel still allocates from the pool.",
      "CUDA runtime API, cudaMemsetAsync: the stream parameter defaults to 0; Day 87, reset: empty pool i's offset in the order of s, between the work queued on s before it and after it.",
      "https://github.com/NVIDIA/cuopt/pull/1858 (review: one of two cudaMemsetAsync calls that reset a residual passes no stream, so it runs on the default stream, not the solver's, after the kernel it should follow)",
      [("        CHECK(cudaMemsetAsync(&counters_[i].offset, 0, sizeof(unsigned long long), s));\n",
        "        (void)s;\n        CHECK(cudaMemsetAsync(&counters_[i].offset, 0, sizeof(unsigned long long)));\n")])

entry(HP, "heap-vs-pool", "public_heap_lists_live_with_the_context",
      "not given back", "device-heap allocations never freed across launches",
      "give_back leaves the heap's lists alone, on the belief that what a kernel takes with malloc is given back when the kernel ends: memory from the device heap stays allocated for the context's life until a device free, so each round's spilled lists stay on the heap, the heap (sized for one round's spill) fills over the rounds, and malloc returns null to later rounds' lists.",
      "CUDA C++ Programming Guide, dynamic global memory allocation: memory allocated by a thread's malloc stays allocated for the lifetime of the CUDA context, or until it is explicitly released by free; Day 86, give_back: a heap list is freed with free().",
      "https://github.com/NVIDIA/numba-cuda-mlir/issues/247 (a device malloc per thread and per launch, never freed: 'repeated launches therefore exhaust the 8 MB device heap; malloc then returns NULL')",
      [("    if (!in_arena(a, list)) free(list);\n",
        "    (void)a;\n    (void)list;   // the heap's lists go when the kernel ends\n")])

entry(HP, "heap-vs-pool", "public_default_heap_null_written",
      "written through a null pointer", "the 8 MiB default heap, and malloc's null written through",
      "make_arena leaves the device heap at its default size and build_lists writes each list through whatever take() returned, as a kernel that mallocs per thread on a small grid never sees a null: the default 8 MiB heap holds the lists that spill at a small scale, not the harness's, so malloc returns null and the kernel writes through it.",
      "CUDA C++ Programming Guide, heap memory allocation: the heap has a fixed size (8 MiB unless cudaLimitMallocHeapSize says otherwise) and malloc returns NULL when it cannot satisfy a request; Day 86: size the heap for the lists that spill, and check what take() returns.",
      "https://github.com/NVIDIA/numba-cuda-mlir/issues/194 (a per-thread device malloc in a kernel, never checked: 'the default device heap is 8 MB, so kernels fault with CUDA_ERROR_ILLEGAL_ADDRESS once the grid reaches tens of thousands of threads')",
      [("    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (4u << 20));\n    if (e != cudaSuccess) return e;\n",
        "    (void)spill;   // the default heap is plenty\n"),
       ("    int* p = take(a, &used, need(i) * sizeof(int));\n    lists[i] = p;\n    if (p == nullptr) return;\n",
        "    int* p = take(a, &used, need(i) * sizeof(int));\n    lists[i] = p;\n")])

entry(PP, "peer-pool", "public_pool_left_to_peer_access",
      "must give device 1 read-write access", "peer access taken to open a pool's memory",
      "setup enables peer access from device 1 to device 0, as a library that runs peer-to-peer collectives between its devices does, and never sets the access of device 0's pool: peer access covers cudaMalloc memory only, so device 1's kernel may not touch a chunk from device 0's pool (a memory fault).",
      "CUDA C++ Programming Guide, stream ordered memory allocator: pool allocations' accessibility does not follow cudaDeviceEnablePeerAccess; cudaMemPoolSetAccess sets what devices can access a pool's allocations. Day 75, setup: give device 1 read-write access to device 0's pool.",
      "https://github.com/openxla/xla/pull/14891 (the cudaMallocAsync allocator made per-device pools without cross-device pool access: 'otherwise it will lead to memory fault for intra node nccl operators')",
      [("    cudaMemAccessDesc access = {};\n    access.location.type = cudaMemLocationTypeDevice;\n    access.location.id = 1;\n    access.flags = cudaMemAccessFlagsProtReadWrite;\n    CHECK(cudaMemPoolSetAccess(t.pool[0], &access, 1));\n",
        "    CHECK(cudaSetDevice(1));\n    CHECK(cudaDeviceEnablePeerAccess(0, 0));   // device 1 reaches device 0's memory\n    CHECK(cudaSetDevice(0));\n")])

entry(HO, "python-handoff", "public_side_stream_reads_default_stream_tensor",
      "uses of memory on a stream not ordered after its allocation", "a side stream using a tensor made on the default stream, no wait",
      "pipeline does not make the consumer wait for the default stream before its first write into sums, on the belief that entering a torch.cuda.stream block orders it after what came before: sums was allocated and zeroed on the default stream, and nothing orders the consumer's writes after that.",
      "PyTorch CUDA semantics: entering a stream context does not synchronise; work on a side stream that uses a tensor made on another stream must wait for that stream (wait_stream or an event). Day 77: the consumer writes into sums, made on the default stream.",
      "https://github.com/NVIDIA/cudnn-frontend/pull/487 (review: 'Side streams read default-stream buffers without a recorded dependency ... Entering a stream context does not synchronize'; the fix adds stream.wait_stream(torch.cuda.current_stream()))",
      [("    # sums was made on the default stream: the consumer writes into it.\n    consume.wait_stream(torch.cuda.current_stream())\n", "")])

entry(BP, "block-pool", "public_completion_taken_as_given",
      "must not hand it out until the work queued before its deallocate() is done", "a completion check that answers done without asking",
      "allocate takes a block from its class's idle list as done without asking its event, on the belief that a block given back was given back after its work: deallocate still records the event, but nothing reads it, so a block whose kernel still runs is handed out and overwritten.",
      "CUDA runtime API, cudaEventQuery: cudaSuccess once the recorded work is done, cudaErrorNotReady while it is not; Day 68, allocate: a block is free once the event recorded at its deallocate() has completed.",
      "https://github.com/smol-machines/smolvm/issues/932 ('cuEventQuery always reports complete, so buffers are reused in flight': a caller that polls an event to decide when a buffer is safe to reuse is told complete while the work still runs)",
      [("        if (cudaEventQuery(done_[b]) != cudaSuccess) continue;\n",
        "        const cudaError_t state = cudaSuccess;   // given back: its work was queued before\n        if (state != cudaSuccess) continue;\n")])

entry(PRS, "pool-resource", "public_blocks_aligned_to_16_bytes",
      "every block starts on a multiple of 256 bytes", "blocks rounded to 16 bytes, not 256",
      "allocate rounds each request up to 16 bytes, the alignment a pool of host memory gives (any built-in type's), not to 256: a 4 MiB block less 100 bytes is cut as 4 MiB less 96, and the block cut after it starts 96 bytes short of a 256-byte boundary, where a cudaMalloc'd block would never start.",
      "CUDA C++ Programming Guide, device memory accesses: memory from cudaMalloc is aligned to at least 256 bytes, and a sub-allocator must keep that; the file: every block starts 256-aligned (RMM's alignment).",
      "https://github.com/AMReX-Codes/amrex/pull/5278 ('Align Arena allocations to 256 bytes': the arena's align_size was 16; '256 bytes is the default alignment that cudaMalloc uses')",
      [("        const size_t n = (bytes + mr::default_alignment - 1) & ~(mr::default_alignment - 1);\n",
        "        const size_t n = (bytes + 15) & ~size_t{15};   // any built-in type's alignment\n")])


entry(VG, "vmm-growable", "public_creation_reference_never_released",
      "release() gives every physical allocation back", "the handle cuMemCreate returned never released",
      "release unmaps every chunk and frees the addresses but never releases the handles, on the belief that unmapping gives the physical memory back: the reference cuMemCreate returned keeps each chunk's memory allocated until the process ends, however often buffers are made and released.",
      "CUDA driver API, cuMemRelease: the memory is freed once every mapping is unmapped and every reference to its handle is released; Day 72, release: unmap, release each handle, then free the addresses.",
      "https://github.com/NVIDIA/cuda-python/issues/2344 ('VirtualMemoryResource leaks VMM handles after successful allocation and growth': the handle from cuMemCreate is mapped and never released, so repeated allocate/close cycles fail with CUDA_ERROR_OUT_OF_MEMORY; fixed by https://github.com/NVIDIA/cuda-python/pull/2235)",
      [("            CU(cuMemUnmap(base_ + offset, c.bytes));\n            CU(cuMemRelease(c.handle));\n            offset += c.bytes;\n",
        "            CU(cuMemUnmap(base_ + offset, c.bytes));   // unmapped: the memory goes with its last mapping\n            offset += c.bytes;\n")])

entry(SOP, "stream-ordered-pool", "public_listed_events_left_at_destroy",
      "the pool's destructor destroys every event it made", "the teardown destroys one kind of event the pool made, not the other",
      "The destructor destroys the spare events, the ones the pool keeps as its own, and forgets the events that travel with the blocks still on the free lists: those were made by deallocate too, and nothing destroys them.",
      "CUDA runtime API, cudaEventDestroy: an event lives until it is destroyed; Day 88, TODO 3: destroy every event the pool made, those on the free lists and the spare ones.",
      "https://github.com/intel/llvm/pull/1956 ('Cleanup of profiling events': the additional CUDA events a PI event made for profiling were not released when the PI event was destroyed, only its own)",
      [("        for (auto& [stream, list] : free_)\n            for (Freed& f : list) CHECK(cudaEventDestroy(f.event));\n", "")])


def main():
    for sol, d, name, header, edits in E:
        s = open(sol).read()
        w = s
        for old, new in edits:
            if w.count(old) != 1:
                sys.exit(f"{name}: {old!r} is in {sol} {w.count(old)} times, not once")
            w = w.replace(old, new)
        tmp = f"/tmp/public-{name}"
        open(tmp, "w").write(w)
        diff = subprocess.run(["diff", "-u", "--label", "a/" + sol, "--label", "b/" + sol, sol, tmp],
                              capture_output=True, text=True).stdout
        os.remove(tmp)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, name + ".patch"), "w").write("\n".join(header) + "\n\n" + diff)
        print("wrote", os.path.join(d, name + ".patch"))


main()
