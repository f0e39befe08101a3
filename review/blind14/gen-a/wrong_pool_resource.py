from mkwrong import make
E = "pool-resource"
make(E, "correct.h", "rest-of-a-taken-block-tagged-with-the-taker",
 "when a stream takes part of another stream's free block, the rest it leaves is tagged with the taker ('the taker has waited for the block, so what is left is in its order now')",
 "hidden runs (three streams), phases 5 and 7, and the record: the taker's wait orders only the taker; a third stream that takes the rest waits for the taker's event, whose latest record comes before that wait, not for the stream that freed the block: its kernels may write the rest while the freeing stream's work still uses it; the two-stream default run right",
 "own (the student file's phase 7: a pool that lists the rest as A's must record A's event again after A's wait)",
 [("        if (f.bytes > n) free_[p + n] = Free{f.bytes - n, f.chunk, f.after};", "        if (f.bytes > n) free_[p + n] = Free{f.bytes - n, f.chunk, {s}};")])
make(E, "correct.h", "joined-block-waits-for-its-first-stream-only",
 "allocate waits only for the first stream of the block's set (f.after[0]), 'a block is free in one stream's order', though joins have added the others",
 "the record (phase 1's rounds, where blocks of both streams lie side by side in one chunk and join, and phase 3): a block joined from both streams' frees is taken after a wait for one of them only: the other's work on its part is unordered; the sums usually right",
 "own; torch/cutorch#222 (a wait that follows one of several streams it should follow)",
 [("""        for (cudaStream_t o : f.after)
            if (o != s) CHECK(cudaStreamWaitEvent(s, event_of(o), 0));""",
   """        if (f.after[0] != s) CHECK(cudaStreamWaitEvent(s, event_of(f.after[0]), 0));""")])
make(E, "correct.h", "chunks-sized-to-the-request",
 "grow asks the upstream for the request's own size (n) instead of max(chunk, n), 'a chunk is only what was asked for'",
 "default output: every first request is a chunk of its own; blocks never share a chunk, so phase 2's four 4 MiB blocks, side by side in four chunks, cannot join: the 16 MiB request takes a fifth chunk, and the pool grows where it should reuse (the chunk counts the program prints are wrong)",
 "own (the file: chunk bytes each, or a request's own size when that is larger)",
 [("        const size_t bytes = std::max(rounded(chunk_), n);", "        const size_t bytes = n;")])
make(E, "correct.h", "block-free-in-its-allocating-streams-order",
 "deallocate records the event of, and tags the block with, the stream that allocated it (kept in the handed-out map), not the stream that deallocate names, 'a block belongs to the stream it was made for'",
 "hidden runs (three streams), phase 8, and the record: a block B allocated, A used and gave back on A is free in A's order, but the pool thinks it B's: B takes it again with no wait for A, while A's kernel may still use it; phase 3 (given back on stream 0, allocated on stream 1) the same in the default run's record, though the program's own wait hides it there",
 "own (the student file's phase 8)",
 [("""    struct Used {
        size_t bytes;
        size_t chunk;
    };""", """    struct Used {
        size_t bytes;
        size_t chunk;
        cudaStream_t owner;   // the stream that allocated it
    };"""),
  ("        out_[p] = Used{n, f.chunk};", "        out_[p] = Used{n, f.chunk, s};"),
  ("""        const cudaStream_t s = stream.get();
        Free f{u->second.bytes, u->second.chunk, {s}};""", """        (void)stream;
        const cudaStream_t s = u->second.owner;
        Free f{u->second.bytes, u->second.chunk, {s}};""")])
