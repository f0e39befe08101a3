WRONG = [
("enter-phase-skips-the-trim", [
 "kind: wrong (default output: entering narrow: 'reserved 128 MiB' (the wide phase's memory still held), and its report 'reserved high 128 MiB' (32 wanted): the marks are restarted while the pool still holds the wide phase's memory; the excess goes back only at the narrow phase's first synchronisation)",
 "mistake: enter_phase lowers the threshold and restarts the marks but does not trim, taking the new threshold to give the excess back by itself",
 "why it is wrong: a release threshold acts only at the next synchronisation, not at once; the contract wants what the pool holds beyond the peak back now, before the first round, and a high-water mark restarted while the old memory is held starts from it",
 "source: own (the lesson's point that the threshold acts at synchronisations, the trim at once)",
], [("    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));\n    CHECK(cudaMemPoolTrimTo(pool, 0));\n", "    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));\n")]),
("threshold-set-in-mib", [
 "kind: wrong (default output: 'threshold 0 MiB' in both reports (128 and 32 wanted) and '0 of 6 rounds found their ... already reserved' in both phases: a threshold of 128 or 32 bytes keeps nothing across a synchronisation)",
 "mistake: enter_phase puts the peak divided by MiB as the release threshold, the unit the report prints, where the attribute is in bytes",
 "why it is wrong: cudaMemPoolAttrReleaseThreshold is a byte count; a threshold of a few bytes lets every synchronisation give the whole round back, so no round finds its memory reserved",
 "source: own",
], [("    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));", "    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak / MiB));")]),
("finish-trims-the-devices-default-pool", [
 "kind: wrong (default output: 'after the trim: reserved 32 MiB' (0 wanted): the program's pool keeps the narrow phase's block under its threshold; and the device's default pool, which the program does not own, is trimmed and its threshold changed)",
 "mistake: finish asks for the device's default pool (cudaDeviceGetDefaultMemPool) and lowers its threshold and trims it, 'the pool the device allocates from'",
 "why it is wrong: the rounds allocate from the program's own pool (cudaMallocFromPoolAsync); the default pool is another object, shared with the rest of the process, and the program's pool still holds what its threshold keeps",
 "source: own",
], [("static int finish(cudaMemPool_t pool) {\n    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, 0));\n    CHECK(cudaMemPoolTrimTo(pool, 0));",
     "static int finish(cudaMemPool_t pool) {\n    (void)pool;\n    cudaMemPool_t device_pool = nullptr;\n    CHECK(cudaDeviceGetDefaultMemPool(&device_pool, 0));\n    CHECK(put(device_pool, cudaMemPoolAttrReleaseThreshold, 0));\n    CHECK(cudaMemPoolTrimTo(device_pool, 0));")]),
("peak-read-from-the-used-high", [
 "kind: wrong (other arguments only: with buffers the pool rounds up (e.g. MIB 1 or 3), the measured peak is what the round used, less than it reserved; the threshold is then below what the round holds and each synchronisation gives it back: fewer rounds found their memory reserved; the default 32 MiB buffers are used and reserved alike)",
 "mistake: measure_peak reads cudaMemPoolAttrUsedMemHigh, what the round's buffers asked for, as the bytes the round reserves",
 "why it is wrong: the pool reserves memory in its own units; what a round reserves can exceed what it uses, and a threshold set from the used figure makes the pool release the round's memory at every synchronisation",
 "source: own",
], [("    *peak = attr(pool, cudaMemPoolAttrReservedMemHigh);", "    *peak = attr(pool, cudaMemPoolAttrUsedMemHigh);")]),
]
