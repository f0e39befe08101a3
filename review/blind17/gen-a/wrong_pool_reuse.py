WRONG = [
 dict(slug='boundary-trims-to-the-previous-threshold',
  shows="default output: entering narrow the pool is trimmed to the wide phase's threshold (128 MiB), so it keeps all of it: 'entering narrow: reserved 128 MiB' and 'phase narrow: ... reserved high 128 MiB' (32 wanted); the next synchronisation (after the first narrow round) gives the rest back",
  mistake='enter_phase reads the pool\'s threshold before putting the new one and trims to that, \'trim to what the pool may keep\', so the trim uses the threshold of the phase before',
  why='the memory beyond the new phase\'s peak must go back now, before its first round: trimmed to the old, larger threshold, the pool keeps the previous phase\'s memory, which the new phase\'s marks then count',
  source='own',
  edits=[('''    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
''', '''    const uint64_t keep = attr(pool, cudaMemPoolAttrReleaseThreshold);
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, keep));
''')]),
 dict(slug='measure-leaves-the-marks-running',
  shows="default output: 'measured narrow: one round reserves 128 MiB' (the wide round's mark, never restarted); the narrow phase then keeps 128 MiB: 'phase narrow: ... threshold 128 MiB' (32 wanted), 'entering narrow: reserved 128 MiB'",
  mistake='measure_peak trims the pool to nothing but does not restart the marks, \'a trimmed pool starts from zero anyway\'',
  why='a trim lowers what the pool holds, not its high-water mark: the mark still remembers the wide round, so the narrow measurement reads the larger of the two',
  source='own',
  edits=[('''    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    if (run_round''', '''    CHECK(cudaMemPoolTrimTo(pool, 0));
    if (run_round''')]),
 dict(slug='held-asks-what-is-in-use',
  shows="default output: between rounds nothing is in use, so held is never true: 'wide: 0 of 6 rounds found their 128 MiB already reserved' and 'narrow: 0 of 6 rounds found their 32 MiB already reserved' (5 and 6 wanted); the marks and threshold right",
  mistake='held compares UsedMemCurrent with the need, \'the memory the pool has\', where what it holds reserved (and does not use) is asked',
  why='used memory is what allocations hold right now; what a round can take without the driver is what the pool has reserved beyond that, ReservedMemCurrent minus UsedMemCurrent',
  source='own',
  edits=[('    return reserved >= used && reserved - used >= need;', '    (void)reserved;\n    return used >= need;')]),
 dict(slug='threshold-put-before-the-pool-exists',
  shows="default output: the first call of the program fails: make_pool writes the threshold through a pool handle that is still null, cudaMemPoolSetAttribute refuses it ('invalid argument') and main stops at CHECK(make_pool(...)) before any round",
  mistake='make_pool puts the release threshold of 0 on *pool first and creates the pool after, \'set the pool up, then make it\'',
  why='a pool\'s attributes belong to a pool that exists: before cudaMemPoolCreate the handle is main\'s nullptr, and the call is refused',
  source='own',
  edits=[('''    err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    // 0 is what a new pool has; said here so that nothing depends on it.
    return set(*pool, cudaMemPoolAttrReleaseThreshold, 0);''', '''    // 0 is what a new pool has; said here so that nothing depends on it.
    err = set(*pool, cudaMemPoolAttrReleaseThreshold, 0);
    if (err != cudaSuccess) return err;
    return cudaMemPoolCreate(pool, &props);''')]),
]
