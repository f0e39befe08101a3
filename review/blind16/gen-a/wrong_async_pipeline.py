WRONG = [
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
("iteration-stream-chosen-by-offset", [
 "kind: wrong (time and overlap on the default run: with n = 2^20 every offset is a multiple of any power-of-two stream count (the default 4, or 2, 8, 16), so every iteration runs on the first stream: results right, but the streams never overlap; with 3, 5, 6 or 7 streams the spread happens to be right)",
 "mistake: submit picks its stream as streams_[off % count_], the slice's offset, where the iteration's number it was meant",
 "why it is wrong: the offset is it times n, a multiple of the stream count here, so the spread over every stream the exercise asks for collapses onto one stream",
 "source: own",
], [("    cudaStream_t s = streams_[it % count_];", "    cudaStream_t s = streams_[off % count_];")]),
("sums-copied-to-the-slice-offset", [
 "kind: wrong (default output: iteration 1's partial sums are copied to sums_ + 2^20 long longs, 8 MiB past a buffer of 6 KiB: the copy is refused or faults (the program stops, or host memory is overwritten); only iteration 0's sums land where they belong)",
 "mistake: the copy back of the partial sums goes to sums_ + off, the slice's offset in floats, instead of sums_ + it * BLOCKS",
 "why it is wrong: the sums are BLOCKS long longs an iteration; the slice's offset counts floats of the input and is far past the end of the sums buffer",
 "source: own",
], [("cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, part,", "cudaMemcpyAsync(sums_ + off, part,")]),
]
