"""Each wrong file of blind24's first half: its exercise, slug, header and its one edit
(old text, new text) on the exercise's correct file (make_wrong.py applies them)."""
WRONGS = []


def W(ex, slug, where, mistake, why, source, *edits):
    WRONGS.append(dict(ex=ex, slug=slug, where=where, mistake=mistake, why=why, source=source, edits=list(edits)))


# ---------------------------------------------------------------- block-pool
W("block-pool", "block-start-checked-against-the-alignment-only",
  "default output, part 2",
  "deallocate accepts a pointer when its offset inside the class run is a multiple of kAlign, 'every block starts on a 256-byte boundary', instead of a multiple of the class's stride",
  "an address 256 bytes into a block of a class whose stride is larger passes the check and rel / stride rounds it down to the block that holds it: 'pointer 256 bytes into a block refused: no', the last block goes pending on a pointer the caller never got, and the later give-back of that block is refused ('gave every block back: no, ...'); with every class at most 256 bytes (stride 256) nothing shows",
  "own",
  ("    if (rel % stride_[c] != 0) return false;  // inside a block, not at its start",
   "    if (rel % kAlign != 0) return false;  // every block starts on a kAlign boundary"))

W("block-pool", "events-of-blocks-still-out-left-at-destroy",
  "the record only",
  "destroy destroys the event only of blocks that are not handed out, 'a block still out belongs to its caller, and so does its event'",
  "the events are the pool's, made in init for every block: main destroys the pool with one block of each class still handed out, so three events (one a class) are never destroyed; every printed line is right",
  "related: llnl/camp#71 (event wrappers that create cudaEvent_ts and never free them)",
  ("        if (event_[i] != nullptr) cudaEventDestroy(event_[i]);",
   "        if (event_[i] != nullptr && state_[i] != OUT) cudaEventDestroy(event_[i]);"))

W("block-pool", "next-fit-scan-stops-one-short-of-a-full-turn",
  "other arguments only",
  "allocate's next-fit scan looks at blocks_ - 1 blocks from the cursor, 'the block just before the cursor is the one handed out last', instead of every block of the class",
  "the block just behind the cursor is never looked at: with one block a class (block_pool 1) the scan looks at nothing and the very first allocate says nullptr ('allocate(...) returned nullptr while 1 blocks of ... bytes were free'); with the default 8 blocks the skipped block is always reached again once the cursor moves, so the run is right",
  "own",
  ("    for (size_t k = 0; k < blocks_; k++) {\n        const size_t j = (cursor_[c] + k) % blocks_;",
   "    for (size_t k = 0; k + 1 < blocks_; k++) {\n        const size_t j = (cursor_[c] + k) % blocks_;"))

W("block-pool", "events-shared-by-the-same-slot-of-every-class",
  "a race the default run usually wins, and the record",
  "event_of indexes the events by the block's place in its class alone (event_[j]), 'block j of each class is never busy at the same time', so block j of every class shares one event",
  "a give-back of block j of one class records the shared event again, on its own stream: a pending block j of another class is then asked about that later record, on another stream, and may be handed out while the work queued before its own give-back still runs (part 4 spreads the classes over four streams; the 0.2 ms kernels usually end in time, so the words are mostly right, but the record shows a block handed out while another stream's work may still use it)",
  "related: torch/cutorch#222 (a query or wait on an event sees only its most recent record)",
  ("    cudaEvent_t& event_of(size_t c, size_t j) { return event_[c * blocks_ + j]; }",
   "    cudaEvent_t& event_of(size_t, size_t j) { return event_[j]; }"))
