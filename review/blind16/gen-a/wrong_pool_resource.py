WRONG = [
("next-neighbour-dropped-when-both-join", [
 "kind: wrong (default output, phase 2: the free next neighbour is taken off the list but its bytes are not added, so memory is lost at every join with it: '2. four 4 MiB blocks given back out of order, then 16 MiB: 2 chunk(s) taken' (1 wanted), and more chunks later)",
 "mistake: deallocate erases the free block after p from its chunk's map without adding its size to the block being freed",
 "why it is wrong: joining means the freed block grows by its neighbour; erasing the neighbour without growing loses its bytes for good, so free memory shrinks and the pool asks its upstream for chunks it should not need",
 "source: larcenists/larceny#221 (a freed block that joins the blocks on both sides: all three must become one), dmsc/emu2#122 (free blocks not joined in some free orders, a large request then fails)",
], [("        if (next != fl.end() && next->second.tag == s) {\n            size += next->second.bytes;\n", "        if (next != fl.end() && next->second.tag == s) {\n")]),
("owner-made-to-wait-for-the-taker", [
 "kind: wrong (the record on every run, sums by chance: a block taken from another stream's frees (phase 1's first round, phases 2, 3 and 5 to 8) is used with no wait on the asking stream; the owner's stream is made to wait for the asker instead)",
 "mistake: allocate queues cudaStreamWaitEvent(tag, event_of(s)), the owner's stream waiting for the asker's event, the two arguments swapped",
 "why it is wrong: the stream that must wait is the one about to use the block; making the freeing stream wait orders nothing the asker does and adds a needless dependency the other way",
 "source: own",
], [("            CHECK(cudaStreamWaitEvent(s, event_of(tag), 0));", "            CHECK(cudaStreamWaitEvent(tag, event_of(s), 0));")]),
("rest-listed-at-the-cut-blocks-address", [
 "kind: wrong (default output: the rest of a cut free block is listed at the block's own address, overlapping the block just handed out: 'blocks: N handed out, ... M overlapping a block in use' with M > 0 from phase 2 on, and sums wrong)",
 "mistake: cut lists what the block does not need at off, where the block handed out starts, instead of at off + n",
 "why it is wrong: the rest begins after the n bytes handed out; listed at the block's start, it covers the block in use and a later request gets the same bytes",
 "source: own",
], [("        if (f.bytes > n) fl[off + n] = Free{f.bytes - n, f.tag};", "        if (f.bytes > n) fl[off] = Free{f.bytes - n, f.tag};")]),
("new-chunks-rest-kept-only-past-the-chunk-size", [
 "kind: wrong (default output: a new chunk of the usual size lists no rest, so 12 of its 16 MiB are never used: phase 1 takes a chunk for each stream, and by my trace the four counts read 2, 5, 5 and 6 chunk(s) taken where 1, 1, 2 and 3 are wanted (100 MiB of the upstream's region, past the 52 MiB the program needs); the 20 MiB chunk also lists a free block of 0 bytes)",
 "mistake: allocate lists the rest of a new chunk only when the chunk is larger than chunk_ ('a rest is what a large chunk has left'), comparing with the chunk size instead of the request",
 "why it is wrong: a chunk of chunk bytes is larger than most requests; what the request does not use must stay free, or each request costs a chunk",
 "source: own",
], [("        if (size > n) {", "        if (size > chunk_) {")]),
]
