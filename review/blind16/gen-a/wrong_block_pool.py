WRONG = [
("pending-block-accepted-again", [
 "kind: wrong (default output: 'double free refused: no' in part 2, and part 3's double free on the idle fourth stream accepted: the block's event is recorded again there, completes at once, and the block is handed out while its kernel runs)",
 "mistake: deallocate refuses only a block that is idle ('already free'), so a block given back and still pending is accepted a second time: its event is recorded again on the new stream and it is pushed on the pending list twice",
 "why it is wrong: a block given back but not yet reaped is not handed out either; the second record replaces the wait for the first stream's work with the new stream's (a double free becomes an early reuse), and the twice-listed block can be handed to two requests",
 "source: own (the contract 'already given back, done or not')",
], [("    if (b.state != Out) return false;", "    if (b.state == Idle) return false;")]),
("full-class-spills-into-the-next", [
 "kind: wrong (default output, part 1: 'allocate(1000) with its class all handed out and larger ones free: a block'; later the 3000-byte class is one short for a while)",
 "mistake: when the smallest fitting class has no done block, allocate moves on to the next larger class ('a larger block holds the request too')",
 "why it is wrong: the contract says nullptr when that class has no such block now; taking a larger class's block leaves that class short for its own requests and wastes the difference",
 "source: own",
], [("    if (idle_[c].empty()) return nullptr;\n", "    if (idle_[c].empty()) return c + 1 < classes_.size() ? allocate(classes_[c + 1]) : nullptr;\n")]),
("not-ready-cleared-with-get-last-error", [
 "kind: wrong (default output, part 3d, when a pending block of the smallest class is still busy at that request (likely: part 3c's held kernels run 2 ms past their gate): 'a launch that failed before allocate() is still the last error after it: no, allocate() took it away')",
 "mistake: after an event query that says not ready, allocate calls cudaGetLastError() 'to clear the not-ready error', taking away the caller's own failed launch's error",
 "why it is wrong: cudaErrorNotReady from cudaEventQuery is not kept as the last error; cudaGetLastError resets whatever earlier error the caller has not yet checked, so the caller's failure disappears",
 "source: pytorch/pytorch#18584 (a caching allocator that clears the error after a not-ready event query; here the clearing call takes the caller's error too), NVIDIA/thrust#1020",
], [("        } else {\n            i++;", "        } else {\n            cudaGetLastError();\n            i++;")]),
("pending-block-waited-for-on-the-host", [
 "kind: wrong (host waits: allocate blocks in cudaEventSynchronize; part 3's early request waits for a held kernel that waits for the host's gate (kGateNs), and part 3b/3c block the same way; output may look right, time and the host-wait check show it)",
 "mistake: allocate reaps its pending list with cudaEventSynchronize, 'waiting is fine, the block will be free soon', instead of asking with cudaEventQuery",
 "why it is wrong: allocate must never wait for the GPU; it must answer nullptr when no block is done, and here every allocate waits for every pending block of its class",
 "source: own",
], [("if (cudaEventQuery(b.ev) == cudaSuccess) {", "if (cudaEventSynchronize(b.ev) == cudaSuccess) {")]),
]
