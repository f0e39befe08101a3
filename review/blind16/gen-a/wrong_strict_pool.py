WRONG = [
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
("pair-event-made-again-at-every-hand", [
 "kind: wrong (the record only: every hand makes a new event and the map keeps only the newest of each pair; 2 x ROUNDS - 2 events leak (10 on the default run); output right)",
 "mistake: pair_event creates an event on every call and stores it under the pair, the lookup of the pair's existing event left out",
 "why it is wrong: an event made at each hand replaces the map's entry without destroying the one before; the destructor destroys only the last of each pair",
 "source: own",
], [("    auto it = pairs_.find(key);\n    if (it != pairs_.end()) return it->second;\n", "")]),
("opportunistic-reuse-left-on", [
 "kind: wrong (default output: 'pool: opportunistic 1, internal dependencies 0'; the rounds and sums right, the hands order B after A anyway)",
 "mistake: the constructor turns off internal dependencies only, taking opportunistic reuse for the policy that lets the driver insert waits",
 "why it is wrong: with opportunistic reuse on, a block freed on A whose free has completed may go to B with no event of the program's; the strict pool must turn both policies off",
 "source: own",
], [("    keep(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));\n", "")]),
]
