# Edits that make pool-reuse's wrong files from correct.cu (mkwrong.py).
WRONG = [
dict(slug='measure-keeps-what-it-measured',
 shows="default output: 'measured narrow: one round reserves 128 MiB' (the wide round's memory, still held, serves the narrow round and is counted as its own); the pool also enters the wide phase still holding 128 MiB ('entering wide: reserved 128 MiB', 'wide: 6 of 6 rounds' where 5 are right), and the narrow phase keeps 128 MiB: 'threshold 128 MiB' and a reserved high of 128 where 32 are right",
 mistake="measure_peak puts the threshold back to 0 but leaves out its final trim, 'a threshold of 0 gives everything back'",
 why="a threshold acts only at the next synchronisation, and the next one (inside the narrow measurement's round) comes after the threshold has been raised again; only cudaMemPoolTrimTo gives memory back at once",
 source="own (the course hint: which of your tools act at once, and which only at the next synchronisation?)",
 edits=[('''    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &none));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;''','''    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &none));
    return 0;''')]),
dict(slug='marks-restarted-on-the-devices-default-pool',
 shows="default output: the narrow phase's report still carries the wide phase's highs, 'used high 128 MiB, reserved high 128 MiB' (32 wanted); the wide report right only because the pool's marks count from its creation; the record: the default pool's marks written",
 mistake="enter_phase restarts the two high-water marks of the device's default pool (cudaDeviceGetDefaultMemPool), the pool the lesson's first examples read, while the threshold and the trim act on the program's pool",
 why="the marks are attributes of each pool; writing the default pool's leaves the program's own marks counting from the measurements on",
 source="NVIDIA/cuda-python#771 (attributes of the device's default pool changed where another pool was meant), own",
 edits=[('''    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));''','''    cudaMemPool_t dflt = nullptr;
    CHECK(cudaDeviceGetDefaultMemPool(&dflt, 0));
    CHECK(cudaMemPoolSetAttribute(dflt, cudaMemPoolAttrUsedMemHigh, &zero));
    CHECK(cudaMemPoolSetAttribute(dflt, cudaMemPoolAttrReservedMemHigh, &zero));''')]),
dict(slug='held-asks-for-more-than-the-need',
 shows="default output: the pool keeps exactly what a round needs (4 x 32 MiB, 32 MiB), so no round counts: 'wide: 0 of 6 rounds found their 128 MiB already reserved' and 'narrow: 0 of 6' (5 and 6 wanted); only sizes the pool rounds up show the right counts",
 mistake="held compares with a strict >, 'at least need' written as more than need",
 why="an exact multiple: a pool that holds just the need serves the round without the driver, and must count",
 source="own (an exact-multiple boundary)",
 edits=[('reserved - used >= need;','reserved - used > need;')]),
dict(slug='finish-lowers-the-threshold-only',
 shows="default output: 'after the trim: reserved 32 MiB' (0 wanted): the pool still holds the narrow phase's block when main reads it; it goes back only at a later synchronisation, which never comes before the pool is destroyed",
 mistake="finish sets the release threshold to 0 and stops there, 'with a threshold of 0 the pool keeps nothing'",
 why="the threshold says what the pool keeps at its next synchronisation; it gives nothing back by itself; the trim does it now",
 source="NVIDIA/cccl#6718 (a threshold of 0 as the pool's policy at synchronisation), own",
 edits=[('''    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &zero));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    return 0;
}''','''    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &zero));
    return 0;
}''')]),
]
