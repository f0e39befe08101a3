WRONG = [
("drain-waits-for-the-last-iterations-stream", [
 "kind: wrong (a race: drain waits only for the stream of the last iteration; main may read the other streams' results before their copies back land: results and checksums wrong on runs where another stream is behind; the record shows host reads of unfinished copies)",
 "mistake: drain synchronises only streams_[count_ - 1], reasoning that the last iteration queued is the last to finish",
 "why it is wrong: the streams are non-blocking and independent; nothing orders the other streams' work before the last stream's, so an earlier iteration on another stream can still be copying when drain returns",
 "source: own",
], [("    for (int i = 0; i < count_; i++) CHECK(cudaStreamSynchronize(streams_[i]));", "    CHECK(cudaStreamSynchronize(streams_[count_ - 1]));")]),
("output-copied-to-the-first-slice", [
 "kind: wrong (default output: every iteration's scaled values land at the start of the output, the last to finish winning; only one slice (at most) right: '1 of 12 results right' or fewer, the checksums right)",
 "mistake: the copy back of the scaled values goes to out_ (the output's start) instead of out_ + off, the input's copy in having been written with the offset",
 "why it is wrong: iteration it's results belong at offset off of the output; the other slices keep main's 0xff fill, and the iterations on different streams race to write the first slice",
 "source: own",
], [("cudaMemcpyAsync(out_ + off, d,", "cudaMemcpyAsync(out_, d,")]),
("host-buffers-made-managed", [
 "kind: wrong (default output: 'host buffers pinned: no' (the pointers are managed memory, not host memory); the results right; time may suffer from page migration, and 'host buffers given back' right)",
 "mistake: the host's three buffers come from cudaMallocManaged, 'memory both sides can reach', freed with cudaFree",
 "why it is wrong: the exercise asks for page-locked host memory so that the copies run asynchronously while the host queues; managed memory is not page-locked host memory, its pages migrate on touch, and the copies from it are not the overlapped DMA the pipeline is built on",
 "source: own",
], [("    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&in_), total * sizeof(float), cudaHostAllocPortable));\n    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&out_), total * sizeof(float), cudaHostAllocPortable));\n    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&sums_), (size_t)iterations * BLOCKS * sizeof(long long), cudaHostAllocPortable));",
     "    CHECK(cudaMallocManaged(reinterpret_cast<void**>(&in_), total * sizeof(float)));\n    CHECK(cudaMallocManaged(reinterpret_cast<void**>(&out_), total * sizeof(float)));\n    CHECK(cudaMallocManaged(reinterpret_cast<void**>(&sums_), (size_t)iterations * BLOCKS * sizeof(long long)));"),
    ("    cudaFreeHost(in_);\n    cudaFreeHost(out_);\n    cudaFreeHost(sums_);", "    cudaFree(in_);\n    cudaFree(out_);\n    cudaFree(sums_);")]),
("checksum-launched-without-its-stream", [
 "kind: wrong (a race and the record: checksum runs on the legacy default stream, which the non-blocking streams do not wait for and which does not wait for them: it may sum the slice before scale has written it, and write the partial sums after they were copied back or freed; checksums wrong on some runs, an unordered use every run)",
 "mistake: the checksum launch leaves out the launch's stream argument (<<<BLOCKS, THREADS>>>), as a kernel with no shared memory 'needs no more'",
 "why it is wrong: without a stream a kernel goes to the default stream; the iteration's streams were made non-blocking, so nothing orders checksum after scale or before the copy back and the frees",
 "source: openvdb/fvdb-core#587 (kernel launches that left out the caller's stream and ran on stream 0)",
], [("    checksum<<<BLOCKS, THREADS, 0, s>>>(d, n, part);", "    checksum<<<BLOCKS, THREADS>>>(d, n, part);")]),
]
