from mkwrong import make
E = "cross-stream"
make(E, "correct.cu", "second-half-skips-its-wait",
 "only half 0's stage waits for loaded: half 1 skips the wait, reasoning that main queues half 0 first, so the values are there by the time half 1 runs",
 "race and the record: a wait orders only the stream that queued it, so work_[1]'s square is not ordered after generate: it may read the chunk's values before they are written (wrong half-1 sums on some runs, more often for the first chunk), an unordered read every run",
 "own; huggingface/blog#3372 (streams launched with no wait between them read what is not written yet)",
 [("    CHECK(cudaStreamWaitEvent(s, loaded_, 0));\n", "    if (half == 0) CHECK(cudaStreamWaitEvent(s, loaded_, 0));\n")])
make(E, "correct.cu", "values-freed-after-the-last-queued-half-only",
 "load_ waits only for the last half's squared event before freeing the values, taking 'main queues half 0 before half 1' to mean half 1 ends last",
 "race and the record: the values' free on load_ is not ordered after half 0's square, which may still read them; the next chunk's generate (same size, same stream) may get the block and overwrite half 0's values (wrong half-0 sums on some runs), an unordered free every run",
 "torch/cutorch#222 (work enqueued in order assumed to finish in order: 'there is no guarantee that the last stream will be done last')",
 [("    for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(load_, squared_[h], 0));\n",
   "    CHECK(cudaStreamWaitEvent(load_, squared_[HALVES - 1], 0));\n")])
make(E, "correct.cu", "partial-sums-sized-for-one-half",
 "the partial-sum buffer is allocated for BLOCKS floats (the sum kernel's comment: 'partial holds BLOCKS floats'), though both halves write theirs into it, half 1's from BLOCKS on",
 "a boundary, the record and results by chance: half 1's sum writes 32 bytes past its 32-byte allocation, into whatever the pool placed there (another chunk's buffer, or unused), and the copy reads 64 bytes of a 32-byte block; the sums are often right (the pool rounds a small block up), an out-of-bounds write and read every run",
 "own (the kernel's comment read for the whole buffer)",
 [("    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), HALVES * BLOCKS * sizeof(float), reduce_));",
   "    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.partial), BLOCKS * sizeof(float), reduce_));")])
make(E, "correct.cu", "values-allocated-in-elements-not-bytes",
 "the values are allocated with ch.n bytes (cudaMallocAsync(&values, ch.n, load_)), a count of floats passed as a size in bytes",
 "default output and the record: generate writes 4 n bytes into an n-byte block: the other three quarters land in memory the pool hands to the squares, the partial sums and the next chunks; sums wrong for most chunks, out-of-bounds writes every run",
 "own",
 [("    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.values), (size_t)ch.n * sizeof(float), load_));",
   "    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ch.values), (size_t)ch.n, load_));")])
