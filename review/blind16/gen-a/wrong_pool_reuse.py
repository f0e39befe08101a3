WRONG = [
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
 "source: rapidsai/rmm#676 (a resource's destructor that trims the device's default pool rather than memory it owns)",
], [("static int finish(cudaMemPool_t pool) {\n    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, 0));\n    CHECK(cudaMemPoolTrimTo(pool, 0));",
     "static int finish(cudaMemPool_t pool) {\n    (void)pool;\n    cudaMemPool_t device_pool = nullptr;\n    CHECK(cudaDeviceGetDefaultMemPool(&device_pool, 0));\n    CHECK(put(device_pool, cudaMemPoolAttrReleaseThreshold, 0));\n    CHECK(cudaMemPoolTrimTo(device_pool, 0));")]),
("finish-trims-down-to-the-threshold", [
 "kind: wrong (default output: 'after the trim: reserved 32 MiB' (0 wanted): the pool trims only down to the narrow phase's threshold, which it already held)",
 "mistake: finish trims the pool to its release threshold, 'what it is allowed to keep', and leaves the threshold as it is",
 "why it is wrong: at the end the pool must give back everything it keeps; cudaMemPoolTrimTo keeps up to the bytes it is given, and the threshold still lets the pool keep that much at later synchronisations",
 "source: Genesis-Embodied-AI/quadrants#669 (giving back everything a pool caches needs a trim with nothing to keep)",
], [("static int finish(cudaMemPool_t pool) {\n    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, 0));\n    CHECK(cudaMemPoolTrimTo(pool, 0));", "static int finish(cudaMemPool_t pool) {\n    CHECK(cudaMemPoolTrimTo(pool, attr(pool, cudaMemPoolAttrReleaseThreshold)));")]),
("threshold-taken-from-what-the-pool-holds", [
 "kind: wrong (default output: entering wide the pool holds nothing, so its threshold is 0: 'wide: 0 of 6 rounds found their 128 MiB already reserved' and 'threshold 0 MiB'; entering narrow it holds the wide phase's 128 MiB: 'threshold 128 MiB' (32 wanted))",
 "mistake: enter_phase sets the release threshold to what the pool reserves at that moment (ReservedMemCurrent), not to the measured peak",
 "why it is wrong: the threshold must be what the phase's rounds need; what the pool holds at the boundary belongs to the phase before (or is nothing after a trim)",
 "source: own",
], [("    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));", "    (void)peak;\n    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, attr(pool, cudaMemPoolAttrReservedMemCurrent)));")]),
]
