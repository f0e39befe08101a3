WRONG = [
("copy-waits-on-the-other-set", [
 "kind: wrong (race and the record: copy_ waits for the previous chunk's reduced event (chunk 0 for a set never recorded: no wait at all), so it may copy the partial sums before sum has written them and free them while sum still writes: wrong sums on runs where copy_ gets ahead, an unordered use and free every run)",
 "mistake: stage_copy waits on reduced_[(index + 1) % SETS], 'the set the reduce stage moved on to', instead of the chunk's own set",
 "why it is wrong: with two sets, the other set holds the record of the chunk before (or nothing yet); the copy must wait for the record made after this chunk's sums",
 "source: own",
], [("    CHECK(cudaStreamWaitEvent(copy_, reduced_[k], 0));", "    CHECK(cudaStreamWaitEvent(copy_, reduced_[(k + 1) % SETS], 0));")]),
("loaded-recorded-before-generate", [
 "kind: wrong (race and the record: the work streams wait for a record made before generate is queued, so square may read the values before they are written (or read a fresh pool block's old contents): wrong sums on some runs, an unordered use every run)",
 "mistake: stage_load records loaded right after the allocation, before the generate launch, 'the buffer is ready once allocated'",
 "why it is wrong: an event captures the work queued on its stream before the record; recorded before generate, it tells the work streams only that the allocation happened, not that the values are written",
 "source: own",
], [("    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);\n    CHECK(cudaGetLastError());\n    CHECK(cudaEventRecord(loaded_[k], load_));",
     "    CHECK(cudaEventRecord(loaded_[k], load_));\n    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);\n    CHECK(cudaGetLastError());")]),
("sum-reads-a-whole-chunk-from-each-half", [
 "kind: wrong (default output and the record: each sum reads n values from a half's buffer of n / 2: it reads past the allocation (out of bounds every run) and adds whatever lies after it; the sums wrong, or an illegal address)",
 "mistake: stage_reduce passes ch.n, the chunk's count, to sum for each half, where each half's squares hold n / HALVES values",
 "why it is wrong: a half's square buffer is half the chunk; its sum must be given the half's length",
 "source: own",
], [("        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partial + h * BLOCKS);", "        sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], ch.n, ch.partial + h * BLOCKS);")]),
("finish-destroys-one-set-only", [
 "kind: wrong (the record only: the second set's four events (loaded, two squared, reduced) are never destroyed; the output right)",
 "mistake: finish destroys the events of set 0 only, written before the events were doubled into two sets and not changed after",
 "why it is wrong: start made SETS sets; each event made must be destroyed, or the pipeline leaks four events a run",
 "source: own",
], [("int Pipeline::finish() {\n    for (int k = 0; k < SETS; k++) {", "int Pipeline::finish() {\n    for (int k = 0; k < 1; k++) {")]),
]
