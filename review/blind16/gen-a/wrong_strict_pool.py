WRONG = [
("follow-event-dependencies-turned-off", [
 "kind: wrong (default output: '0 of 6 rounds: B reused the block A freed' and 'pool reserved at most 64 MiB for blocks of 32 MiB' (32 wanted); the policy line and the sums right)",
 "mistake: the constructor turns off all three reuse policies, cudaMemPoolReuseFollowEventDependencies too, 'a strict pool reuses nothing by itself'",
 "why it is wrong: following event dependencies is the one way the exercise keeps: with it off, the pool does not count the program's wait as ordering B after A's free, so B never gets A's block however it is handed",
 "source: own (misreading the three policies as one switch)",
], [("    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));\n",
     "    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));\n    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseFollowEventDependencies, &off));\n")]),
("reserved-high-read-through-an-int", [
 "kind: wrong (by chance and the record: the driver writes eight bytes into a four-byte int, the upper four over whatever lies next to it on the stack; the printed value is right on a little-endian machine while it is below 2 GiB (the default 32 MiB blocks), so the output shows nothing; a memory checker or a larger MIB does)",
 "mistake: reserved_high reads cudaMemPoolAttrReservedMemHigh into an int, as policy() reads its attributes, and widens it after",
 "why it is wrong: the reserved and used marks are 64-bit attributes (cuuint64_t); the call writes 8 bytes whatever the variable's type, so a 4-byte int is overrun and values of 2 GiB or more are cut",
 "source: own (the file's own warning: read it into a uint64_t)",
], [("    uint64_t v = 0;\n    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v))) return 0;\n    return v;",
     "    int v = 0;\n    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &v))) return 0;\n    return (uint64_t)v;")]),
("pool-location-type-left-unset", [
 "kind: wrong (default output: the pool is never made: cudaMemPoolCreate refuses a location of type invalid (0) and main stops at its first check of error() with 'invalid argument')",
 "mistake: the constructor sets the props' location id to the device but not the location's type, 'the id names the device'",
 "why it is wrong: the location's type says what the id means; left at its zero value it is cudaMemLocationTypeInvalid, and the driver refuses the props",
 "source: own",
], [("    props.location.type = cudaMemLocationTypeDevice;\n", "")]),
("hand-waits-before-its-record", [
 "kind: wrong (default output and the record: each wait takes the pair's previous record (the round before, or none at the first hand), never this round's put: '0 of 6 rounds: B reused the block A freed', 'pool reserved at most 64 MiB'; with LATE 1 B's add may read the word before A's copy lands: some rounds summed wrong)",
 "mistake: hand queues to's wait on the event first and records it on from after, 'set up the wait, then fire it'",
 "why it is wrong: cudaStreamWaitEvent waits for the record the event holds when the wait is queued; a record made later is not waited for, so to is not ordered after what from queued this round",
 "source: eyalroz/cuda-api-wrappers#226 (a wait or query uses the most recently captured state at the time of the call; an event never recorded counts as done)",
], [("    if (keep(cudaEventRecord(ev, from))) keep(cudaStreamWaitEvent(to, ev, 0));", "    if (keep(cudaStreamWaitEvent(to, ev, 0))) keep(cudaEventRecord(ev, from));")]),
]
