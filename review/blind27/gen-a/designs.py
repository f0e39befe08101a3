"""Each correct file's design line (its header's mistake line says "none.
Design: ..."), and what its why line says."""

WHY = "nothing (the set's correct design; every wrong file of this exercise is this file with one mistake)"

DESIGN = {
    "block-pool": (
        "INTRUSIVE LINKED LISTS and an event PER GIVE-BACK: the blocks numbered class by class, each class with two "
        "singly linked lists threaded through one next_ array of ints (its idle blocks, a stack; its given-back blocks "
        "whose work may still run, pushed at the head); deallocate MAKES a fresh event (timing off), records it on the "
        "stream and pushes the block on its class's pending list; allocate walks the classes linearly to the first that "
        "holds the request and, only when that class's idle list is empty, harvests: it walks the class's WHOLE pending "
        "list, asks each event with cudaEventQuery (never a wait) and unlinks every done block to the idle list, "
        "DESTROYING its event there, so the pool holds an event only while a block waits (one cudaEventCreate and one "
        "cudaEventDestroy per give-back, some 260 of each on the default run, none in init); a pointer is found by "
        "arithmetic on uintptr_t (range check, the class by a walk down the class starts, an exact multiple of the "
        "stride, fewer than blocks); the one cudaMalloc is the full sum of the strides (each class size rounded up to "
        "256); destroy destroys the events of the blocks still pending and frees the one allocation"
    ),
    "async-pipeline": (
        "a CHAINED DRAIN and ONE REGISTERED REGION: the host's input, output and sums carved from ONE aligned_alloc "
        "region (whole 4 KiB pages, the sums at the next 256-byte boundary after the output), page-locked with ONE "
        "cudaHostRegister and given back with cudaHostUnregister, then free; iteration it on streams[it % count] with "
        "TWO cudaMallocAsync blocks, both allocated before the copy in: the values (copied in, scaled IN PLACE, summed, "
        "copied back, freed right after their copy back) and the partial sums (copied back, then freed); drain joins "
        "the streams in a CHAIN of count link events (made in the constructor with new[], timing off): stream i waits "
        "for link i - 1 and then records link i, so the last link follows every stream's work, and the host makes ONE "
        "cudaEventSynchronize, on the last link (count records, count - 1 stream waits, one host wait); the destructor "
        "destroys the links"
    ),
    "pool-reuse": (
        "ALL FIVE FIGURES READ AT ONCE: a figures() helper reads the reserved (now, high), used (now, high) and "
        "threshold attributes through one table of five attributes indexed by an enum, each through attr (a uint64_t, "
        "a failed call's error cleared), and held, measure_peak and report all use it (held makes five attribute "
        "reads and asks whether reserved now minus used now, never below 0, covers the need); a set() helper writes "
        "any 64-bit attribute and restart_marks() writes 0 to the used and then the reserved high-water mark; make_pool "
        "from memset-zeroed props with the handle types written as none, then the 0 threshold written; measure_peak "
        "writes the threshold 0, trims to 0, restarts both marks, runs the round and reads the reserved mark from the "
        "figures (three calls, the round, five reads); enter_phase writes the threshold, trims to the peak, restarts "
        "both marks; finish writes the threshold 0 and trims to 0"
    ),
    "cross-stream": (
        "the events in ONE ARRAY (LOADED, one SQUARED per half through squared(h), REDUCED; EVENTS the count; made in "
        "start with timing off, destroyed in finish); each buffer allocated on the stream that writes it (the values on "
        "load_, each half's squares on its work stream after its wait for LOADED, the partial sums on reduce_ BEFORE any "
        "wait, since only reduce_ writes them); stage_reduce INTERLEAVES its waits with its sums: for each half it waits "
        "for that half's SQUARED, sums it and frees that half's squares at once, so half 0 is summed while half 1 may "
        "still be squared; the values are freed on reduce_ AFTER the loop (both of their readers are then in reduce_'s "
        "order), then REDUCED is recorded; copy_ waits for REDUCED, copies the sums back and frees them; load_ never "
        "waits"
    ),
    "strict-pool": (
        "a FRESH EVENT PER HAND KEPT UNTIL THE NEXT HAND: hand creates an event (timing off), records it on from, "
        "queues to's wait on it, then destroys the previous hand's event (a wait already queued does not need its event "
        "to live on) and keeps the new one as last_, so the pool holds one event at most and the destructor destroys "
        "that last one before the pool (12 creates and 12 destroys on the default run); the pool from value-initialised "
        "props with the handle types written as none, the TWO policies it turns off written in a loop over an array of "
        "attributes (following event dependencies left at its default 1); get through cudaMallocFromPoolAsync, nullptr "
        "on failure; put through cudaFreeAsync; a keep() member notes the first failed call; policy reads an int and "
        "clears a failed question's error; reserved_high reads a uint64_t; pools_supported asks "
        "cudaDevAttrMemoryPoolsSupported, a failed question cleared and taken for no"
    ),
    "vmm-growable": (
        "IN PLACE FIRST, the extension AS LARGE AS THE WHOLE REQUEST: past the reservation the buffer asks for a range "
        "of round(request) bytes at its last range's end (so the ranges then total the old reservation plus the "
        "request); granted there, it is one more range of a list of ranges side by side, and new memory is CUT AT EACH "
        "RANGE'S END (a chunk never crosses two ranges: 3 chunks of 2, 62 and 36 MiB on the default run when the "
        "extension is granted); placed elsewhere (or refused), it is given back at once and the buffer MOVES into one "
        "range of that same total, placed where the driver likes: each kept handle mapped at its offset and opened, a "
        "failure undone, then cuCtxSynchronize, every old mapping unmapped and every old range freed with its own size; "
        "each chunk keeps its handle, size and offset; release unmaps and releases the chunks from the LAST to the "
        "first, then frees the ranges from the last to the first, each with the size it was reserved with"
    ),
    "pool-resource": (
        "a TAG PER 256-BYTE UNIT: each chunk is a row of units (a std::vector<uint16_t> of tags: 0 while handed out, "
        "else the number of the stream in whose order the unit is free, its place in events_ plus one), so a free "
        "block is a RUN of units of one tag and neighbours freed in one stream's order are one block with no join to "
        "do, while blocks of two streams stay apart; allocate scans every chunk's runs once, keeping the shortest run "
        "that holds the request among the asker's own and among the others', takes its own, else the others' behind "
        "ONE wait on that run's stream's event (the rest of the run keeps its tag), else asks the upstream for "
        "max(chunk, rounded request) on the asker's stream, tags the whole chunk as the asker's and records the "
        "asker's event after it; the blocks handed out in a std::unordered_map (chunk, first unit, units); deallocate "
        "records the freeing stream's event and tags the block's units with that stream; the destructor gives each "
        "chunk back on the stream that asked for it, with its size, then destroys the events"
    ),
}
