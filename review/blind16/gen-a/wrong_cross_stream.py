WRONG = [
("copy-waits-on-the-other-set", [
 "kind: wrong (race and the record: copy_ waits for the previous chunk's reduced event (chunk 0 for a set never recorded: no wait at all), so it may copy the partial sums before sum has written them and free them while sum still writes: wrong sums on runs where copy_ gets ahead, an unordered use and free every run)",
 "mistake: stage_copy waits on reduced_[(index + 1) % SETS], 'the set the reduce stage moved on to', instead of the chunk's own set",
 "why it is wrong: with two sets, the other set holds the record of the chunk before (or nothing yet); the copy must wait for the record made after this chunk's sums",
 "source: own",
], [("    CHECK(cudaStreamWaitEvent(copy_, reduced_[k], 0));", "    CHECK(cudaStreamWaitEvent(copy_, reduced_[(k + 1) % SETS], 0));")]),
("sum-reads-a-whole-chunk-from-each-half", [
 "kind: wrong (default output and the record: each sum reads n values from a half's buffer of n / 2: it reads past the allocation (out of bounds every run) and adds whatever lies after it; the sums wrong, or an illegal address)",
 "mistake: stage_reduce passes ch.n, the chunk's count, to sum for each half, where each half's squares hold n / HALVES values",
 "why it is wrong: a half's square buffer is half the chunk; its sum must be given the half's length",
 "source: own",
], [("        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);", "        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], ch.n, ch.partial + h * BLOCKS);")]),
("squares-freed-before-their-sum", [
 "kind: wrong (the record every run (a use after free in reduce_'s own order) and sums by chance: each half's squares are freed before the sum that reads them is queued; the pool may hand the block to the next chunk's square on a work stream, which overwrites it while sum reads)",
 "mistake: stage_reduce queues each half's free right before that half's sum, 'the buffer goes once the last stage that needs it is reached'",
 "why it is wrong: a stream-ordered free takes effect in the stream's order at the point it is queued; the sum queued after it reads memory already given back to the pool",
 "source: own",
], [("        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);\n        CHECK(cudaGetLastError());\n        CHECK(cudaFreeAsync(ch.squares[h], reduce_));",
     "        CHECK(cudaFreeAsync(ch.squares[h], reduce_));\n        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);\n        CHECK(cudaGetLastError());")]),
("second-half-offset-counted-in-bytes", [
 "kind: wrong (default output and the record: half 1 reads from values + 4 * n / 2 floats, past the end of the chunk's n values: out-of-bounds reads and wrong half-1 sums, or an illegal address)",
 "mistake: stage_work advances the values' pointer by half * m * sizeof(float), a byte count, on a float pointer",
 "why it is wrong: pointer arithmetic on a float* already counts floats; multiplying by sizeof(float) moves four times too far",
 "source: own",
], [("    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * m, ch.squares[half], m);", "    square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * m * sizeof(float), ch.squares[half], m);")]),
]
