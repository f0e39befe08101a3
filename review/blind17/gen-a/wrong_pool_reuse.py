WRONG = [
 dict(slug='marks-restarted-before-the-trim',
  shows="default output: entering narrow the pool still holds the wide phase's 128 MiB when the marks restart, so the narrow report reads 'reserved high 128 MiB' (32 wanted); the rounds and the trim are right",
  mistake='enter_phase restarts the two high-water marks first and only then puts the threshold and trims, \'clear the counters, then set up the phase\'',
  why='writing 0 to the reserved high mark restarts it from what the pool holds at that moment: before the trim that is the previous phase\'s memory, which then stays in the new phase\'s mark',
  source='own',
  edits=[('''    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
    // Last: the marks restart from what the pool keeps for this phase.
    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
''', '''    CHECK(set(pool, cudaMemPoolAttrReservedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrUsedMemHigh, 0));
    CHECK(set(pool, cudaMemPoolAttrReleaseThreshold, peak));
    CHECK(cudaMemPoolTrimTo(pool, peak));
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
 dict(slug='pool-made-the-devices-current-pool',
  shows='the record only (a check of the device\'s current pool): the output is right; the program has changed the device\'s current pool, which other code that calls cudaMallocAsync on this device would now draw from (and which is destroyed under it at the end)',
  mistake='make_pool also calls cudaDeviceSetMemPool(device, pool), \'so that the device uses the new pool\'',
  why='the exercise\'s pool is its own, apart from the device\'s pools; making it current changes what every cudaMallocAsync without a pool on this device uses, a setting the program does not own',
  source='cupy/cupy#5191 (the current pool can be changed behind a library\'s back by another library calling cudaDeviceSetMemPool)',
  edits=[('''    err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
''', '''    err = cudaMemPoolCreate(pool, &props);
    if (err != cudaSuccess) return err;
    err = cudaDeviceSetMemPool(device, *pool);
    if (err != cudaSuccess) return err;
''')]),
 dict(slug='report-reads-the-current-figures',
  shows="default output: 'phase wide: used high 0 MiB, reserved high 128 MiB' and 'phase narrow: used high 0 MiB, reserved high 32 MiB': the used figure is 0 (nothing in use between rounds); with TRIM one past the last round the reserved figure is 0 too",
  mistake='report prints UsedMemCurrent and ReservedMemCurrent, \'what the pool uses and holds\', where the high-water marks are asked for',
  why='the current figures say what is in use and held now, after the rounds have freed everything: the phase\'s highs are the marks',
  source='own',
  edits=[('attr(pool, cudaMemPoolAttrUsedMemHigh) / MiB, attr(pool, cudaMemPoolAttrReservedMemHigh) / MiB,',
          'attr(pool, cudaMemPoolAttrUsedMemCurrent) / MiB, attr(pool, cudaMemPoolAttrReservedMemCurrent) / MiB,')]),
]
