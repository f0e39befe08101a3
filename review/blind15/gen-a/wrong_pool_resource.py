# Edits that make pool-resource's wrong files from correct.h (mkwrong.py).
WRONG = [
dict(slug='neighbours-joined-across-chunks',
 shows="default output, phase 4: the upstream's chunks lie side by side, so when phase 3 gives its blocks back on stream 0, the 4 MiB at the start of the second chunk joins the whole first chunk before it (16 MiB, also free on stream 0) into one 20 MiB block; phase 4's 20 MiB request takes it, across the two chunks: 'blocks: ... 1 not inside one chunk', and '4. 20 MiB, more than a chunk: 2 chunk(s) taken' (3 wanted)",
 mistake="joinable leaves out the chunk test: two free neighbours of one stream join whenever their addresses touch, 'contiguous memory is contiguous memory'",
 why="each chunk is the upstream's and goes back whole; a block may never span two of them, even where the upstream happened to cut them side by side",
 source="own (the file: each chunk goes back to the upstream whole)",
 edits=[('return a->second.free && b->second.free && a->second.chunk == b->second.chunk &&','return a->second.free && b->second.free &&')]),
dict(slug='new-chunk-ready-without-a-record',
 shows="the record on every run and sums by chance: a new chunk's rest, taken by another stream, is used behind a wait on an event with no record after the upstream's clear (in phase 1's first round none at all: a wait on a never-recorded event orders nothing): the clear on the growing stream may overwrite the taker's fill (phase 1's first round, and phase 5's 4 MiB that A takes from C's chunk in the hidden runs)",
 mistake="allocate records no event after asking the upstream for a chunk, reasoning that only frees make a block free in a stream's order",
 why="the chunk is ready in the order of the stream that asked for it (its upstream clears it there); a later taker on another stream must wait for a record made after that",
 source="own (the file: a chunk's memory is ready in the order of the stream that asked for it)",
 edits=[('''            // The chunk is ready in s's order: a later taker of its rest
            // waits for this record.
            CHECK(cudaEventRecord(event_of(s), s));
''','')]),
dict(slug='sizes-not-rounded-to-256',
 shows="default output: phase 1's block of 4 MiB - 100 bytes leaves a rest that starts 100 bytes short of a boundary, and every block cut after it is misaligned: 'blocks: N handed out, M misaligned' with M > 0",
 mistake="allocate cuts exactly the bytes asked for, reasoning that the chunk's start is aligned and the caller asked for these bytes",
 why="every block must start on 256 bytes; a block's size must be rounded up so that the next one cut after it starts aligned too",
 source="own (the file: every block starts 256-aligned)",
 edits=[('const size_t n = round(bytes);','const size_t n = bytes;')]),
dict(slug='chunks-never-given-back',
 shows="default output at the end: 'upstream: 3 chunks taken, 0 given back whole' (and in the hidden runs the second pool's line the same); the sums right",
 mistake="the destructor destroys the events and forgets the chunk list, 'the upstream owns its memory and frees it when it goes'",
 why="the pool took the chunks; each must go back to the upstream whole when the pool is destroyed",
 source="own (the course hint: a leak at the end points at the destructor)",
 edits=[('''        for (const auto& c : chunks_) upstream_.deallocate_sync(c.first, c.second);
''','')]),
]
