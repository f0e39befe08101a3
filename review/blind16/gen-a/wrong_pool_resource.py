WRONG = [
("neighbours-joined-whatever-their-stream", [
 "kind: wrong (the record and sums by chance: phase 1's first round leaves stream 0's and stream 1's blocks side by side; joined, the block is tagged with the stream that freed last, and the other stream later takes a part freed in the first stream's order with no wait (an unordered use every run, wrong sums when the GPU's timing falls badly); chunk counts right)",
 "mistake: deallocate joins a freed block with any free neighbour in its chunk, 'free is free', and tags the joined block with the stream of the free just made",
 "why it is wrong: a neighbour freed on another stream is free only in that stream's order; the joined block claims all of it is free in the new stream's order, so a stream that takes it as its own skips the wait for the first stream's work",
 "source: rapidsai/rmm#2489 (blocks merged into another stream's list keyed by an event that does not cover the donor stream's work; a third stream then steals one without the wait)",
], [("        if (next != fl.end() && next->second.tag == s) {", "        if (next != fl.end()) {"),
    ("            if (prev->first + prev->second.bytes == off && prev->second.tag == s) {\n                prev->second.bytes += size;", "            if (prev->first + prev->second.bytes == off) {\n                prev->second.bytes += size;\n                prev->second.tag = s;")]),
("large-request-given-a-chunk-of-chunk-bytes", [
 "kind: wrong (default output, phase 4: the 20 MiB request gets a 16 MiB chunk; its block runs 4 MiB past the chunk: 'blocks: ... 1 not inside one chunk', and the use writes into whatever lies after it in the upstream's region; on the default run nothing lies there yet, so the sums may still be right)",
 "mistake: a new chunk is always chunk_ bytes, 'the pool's chunk size', where a request larger than a chunk needs a chunk of its own size",
 "why it is wrong: the contract says chunk bytes each, or a request's own size when that is larger; a block larger than its chunk spills past the memory the upstream gave",
 "source: own",
], [("        const size_t size = std::max(round256(chunk_), n);", "        const size_t size = round256(chunk_);")]),
("large-chunk-given-back-at-the-chunk-size", [
 "kind: wrong (default output at the end: 'upstream: 3 chunks taken, 2 given back whole, 1 other deallocations' (the 20 MiB chunk of phase 4 handed back as 16 MiB, which the upstream does not recognise); phases and sums right)",
 "mistake: the destructor gives every chunk back at chunk_ bytes, 'every chunk is chunk bytes', forgetting the chunks made at a request's own size",
 "why it is wrong: a resource must be given back the size it was asked for; the upstream matches the pointer and size, refuses the mismatch, and the 20 MiB chunk is never returned",
 "source: own",
], [("        for (const Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.base, c.bytes);", "        for (const Chunk& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.base, chunk_);")]),
("taken-block-waits-on-the-askers-own-event", [
 "kind: wrong (the record on every run, sums by chance: every block taken from another stream's frees (phase 1's first round, phases 2, 3, 5 to 8) is used behind a wait on the asker's own event, which orders nothing new; the asker may write it while the freeing stream still uses it)",
 "mistake: when the best fit is free in another stream's order, allocate waits on event_of(s), the asking stream's event, instead of the event of the stream the block is tagged with",
 "why it is wrong: a stream waiting for its own record is already past it; the only wait that puts s after the block's last use is one on the freeing stream's event",
 "source: own",
], [("            CHECK(cudaStreamWaitEvent(s, event_of(tag), 0));", "            (void)tag;\n            CHECK(cudaStreamWaitEvent(s, event_of(s), 0));")]),
]
