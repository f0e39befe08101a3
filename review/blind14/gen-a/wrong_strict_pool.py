from mkwrong import make
E = "strict-pool"
make(E, "correct.cu", "internal-dependencies-left-on",
 "the constructor turns off opportunistic reuse only, reading it as the one policy that lets a block cross streams without an event; the driver's internal dependencies stay on",
 "default output: 'pool: opportunistic 0, internal dependencies 1'; the rounds and sums right (the hands order B after A anyway), so only the policy line and the pool's attributes show it",
 "own (the lesson: two policies let a block cross streams without an event of the program's); NVlabs/cutile-rs#142 (the reuse policies as separate attributes)",
 [("    note(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));\n", "")])
make(E, "correct.cu", "hand-waits-for-the-stream-on-the-host",
 "hand calls cudaStreamSynchronize(from), 'to comes after from once from is done', instead of an event that to waits for",
 "default output and the record: the host waits inside the loop (twice a round); and with opportunistic reuse off a completed free with no event between A and B is not reused: '0 of 6 rounds: B reused the block A freed', the pool reserves a second block (64 MiB for 32)",
 "own; chelsea0x3b/cudarc#77 (a second stream ordered with events, not a host wait), the lesson (a wait on the host in the loop fails)",
 [("""    cudaEvent_t e;
    if (note(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return;
    if (!note(cudaEventRecord(e, from))) note(cudaStreamWaitEvent(to, e, 0));
    note(cudaEventDestroy(e));
""", """    (void)to;
    note(cudaStreamSynchronize(from));
""")])
make(E, "correct.cu", "hand-event-destroyed-before-the-wait",
 "hand destroys its event right after the record and queues the wait after, reading 'destroying it right after is allowed' as right after the record",
 "default output: the wait is queued on a destroyed event: cudaStreamWaitEvent refuses the handle (invalid resource handle), the failure is kept and main stops at the first round's CHECK(pool.error()) with exit 1",
 "zama-ai/tfhe-rs#3186 (a temporary event destroyed around its wait: 'we will lose the correct waiting order'), chelsea0x3b/cudarc#335",
 [("""    if (!note(cudaEventRecord(e, from))) note(cudaStreamWaitEvent(to, e, 0));
    note(cudaEventDestroy(e));
""", """    const bool recorded = !note(cudaEventRecord(e, from));
    note(cudaEventDestroy(e));
    if (recorded) note(cudaStreamWaitEvent(to, e, 0));
""")])
make(E, "correct.cu", "mark-taken-at-the-put",
 "put records the hand's event right after its cudaFreeAsync and hand only waits for that mark (then destroys it), 'the hand is for the block, and the block is free at the put'",
 "other arguments only (LATE 1): the kernel and the copy A queues after its put and before its hand are not ordered before B: B's add may read the word before A's copy lands: some rounds sum short by r + 1 ('5 of 6 rounds summed correctly' or fewer, by timing), an unordered read every run; the default run right",
 "own (the student file: a hand orders to after all from queued so far, not only its puts); sgl-project/sglang#14214 (an event recorded at another point than the wait expects)",
 [("    cudaError_t first_ = cudaSuccess;\n", "    cudaError_t first_ = cudaSuccess;\n    cudaEvent_t mark_ = nullptr; // recorded at the latest put\n"),
  ("    if (p != nullptr) note(cudaFreeAsync(p, s));\n", """    if (p == nullptr || note(cudaFreeAsync(p, s))) return;
    if (mark_ == nullptr && note(cudaEventCreateWithFlags(&mark_, cudaEventDisableTiming))) return;
    note(cudaEventRecord(mark_, s));
"""),
  ("""    cudaEvent_t e;
    if (note(cudaEventCreateWithFlags(&e, cudaEventDisableTiming))) return;
    if (!note(cudaEventRecord(e, from))) note(cudaStreamWaitEvent(to, e, 0));
    note(cudaEventDestroy(e));
""", """    (void)from;
    if (mark_ == nullptr) return;
    note(cudaStreamWaitEvent(to, mark_, 0));
    note(cudaEventDestroy(mark_));
    mark_ = nullptr;
""")])
