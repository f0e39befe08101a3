WRONG = [
("pending-block-waited-for-on-the-host", [
 "kind: wrong (default output and host waits: part 3's early request blocks in cudaEventSynchronize on a held kernel that waits for the gate the host opens only after allocate returns, so it returns after kGateNs (200 ms) with a block whose kernel has just ended: 'allocate while every block of 1000 bytes is in use: a block' (nullptr wanted); parts 3b and 3c wait the same way; a host-wait check or the time shows it everywhere)",
 "mistake: allocate reaps its pending list with cudaEventSynchronize, 'waiting is fine, the block will be free soon', instead of asking with cudaEventQuery",
 "why it is wrong: allocate must never wait for the GPU; it must answer nullptr when no block is done, and here every allocate waits for every pending block of its class",
 "source: own",
], [("if (cudaEventQuery(b.ev) == cudaSuccess) {", "if (cudaEventSynchronize(b.ev) == cudaSuccess) {")]),
("given-back-block-pushed-to-the-idle-stack", [
 "kind: wrong (default output and the record: a block given back is handed out at once while its kernel still runs: part 3's early request gets 'a block', part 3b/3c count blocks 'in use', and the last line names a request whose words were overwritten)",
 "mistake: deallocate records the block's event but then puts the block straight on its class's idle stack, 'the event will keep it safe', instead of on the pending list",
 "why it is wrong: an event only tells when the work is done if somebody asks it; allocate pops idle blocks without a query, so the record protects nothing and the block goes to the next request while the stream's work may still use it",
 "source: own",
], [("    b.state = Pending;\n    pending_[b.cls].push_back(it->second);", "    b.state = Idle;\n    idle_[b.cls].push_back(it->second);")]),
("arena-sized-without-the-block-count", [
 "kind: wrong (default output or the record: the cudaMalloc holds one block of each class (14336 bytes for the default classes) while the layout places 8 of each: from the 3000-byte class on, blocks lie past the allocation; the clears and kernels on them either fail (the program stops at part 1) or write past it (out-of-bounds writes in the record))",
 "mistake: init sums each class's rounded size once, leaving out the number of blocks, where the arena needs blocks blocks of every class",
 "why it is wrong: the layout gives each class `blocks` blocks one after another; an arena sized for one block a class ends long before the last blocks, which are then memory the pool does not own",
 "source: own",
], [("    for (size_t c : classes_) total += roundUp(c) * blocks;", "    for (size_t c : classes_) total += roundUp(c);")]),
("offset-restarted-for-each-class", [
 "kind: wrong (default output, part 1: every class's blocks start at the arena's start: 'overlapping: yes'; and later words overwritten when two classes' requests share bytes)",
 "mistake: init keeps the running offset inside the class loop (size_t off = 0 at each class), so every class is laid out from the arena's start",
 "why it is wrong: the classes must follow each other in the one allocation; restarting the offset lays them on top of each other, so blocks of different classes share memory",
 "source: own",
], [("    size_t off = 0;\n    for (size_t c = 0; c < classes_.size(); c++) {\n", "    for (size_t c = 0; c < classes_.size(); c++) {\n        size_t off = 0;\n")]),
]
