# Edits that make strict-pool's wrong files from correct.cu (mkwrong.py).
WRONG = [
dict(slug='policies-set-on-the-default-pool',
 shows="default output: 'pool: opportunistic 1, internal dependencies 1' (the strict pool keeps both policies on), and the record: the device's default pool, which the program does not own, has both policies turned off; the rounds may still reuse the block (the hands order B after A)",
 mistake="the constructor turns the two policies off on the device's default pool (cudaDeviceGetDefaultMemPool) instead of on the pool it just created, as the guide's first example of the attributes does",
 why="a reuse policy is an attribute of one pool; setting it on another pool leaves the strict pool with every policy on and changes a pool the program does not own",
 source="NVIDIA/cuda-python#771 and NVIDIA/cccl#6718 (pool attributes set on the device's default pool), own",
 edits=[('''    int off = 0;
    note(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowOpportunistic, &off));
    note(cudaMemPoolSetAttribute(pool_, cudaMemPoolReuseAllowInternalDependencies, &off));''','''    int off = 0;
    cudaMemPool_t dflt = nullptr;
    note(cudaDeviceGetDefaultMemPool(&dflt, device));
    note(cudaMemPoolSetAttribute(dflt, cudaMemPoolReuseAllowOpportunistic, &off));
    note(cudaMemPoolSetAttribute(dflt, cudaMemPoolReuseAllowInternalDependencies, &off));''')]),
dict(slug='hand-waits-on-from-instead-of-to',
 shows="default output and the record: from waits for its own record (a no-op) and to waits for nothing: B is never ordered after A's put, so with the policies off B cannot take A's block: '0 of 6 rounds: B reused the block A freed', the pool reserves two blocks (64 MiB for 32)",
 mistake="hand queues cudaStreamWaitEvent(from, mark_) after recording on from: the stream arguments of the wait swapped, 'the wait goes with the stream the event was recorded on'",
 why="cudaStreamWaitEvent makes its first argument wait; the stream that must come after from is to",
 source="own (the argument order of cudaStreamWaitEvent: the waiting stream first)",
 edits=[('note(cudaStreamWaitEvent(to, mark_, 0));','note(cudaStreamWaitEvent(from, mark_, 0));')]),
dict(slug='get-allocates-from-the-current-pool',
 shows="default output and the record: every block comes from the device's current (default) pool, whose policies are on: 'pool reserved at most 0 MiB for blocks of 32 MiB', and B may take A's block with no event of the program's (the record: allocations not from the strict pool)",
 mistake="get allocates with cudaMallocAsync(&p, bytes, s), taking it for 'the pool's allocation in s's order', instead of cudaMallocFromPoolAsync on pool_",
 why="cudaMallocAsync draws on the device's current pool, not on the pool the object made; the strict pool is never used",
 source="own (the course hint: 'a check about the device's current pool means an allocation did not name your pool')",
 edits=[('if (!note(cudaMallocFromPoolAsync(&p, bytes, pool_, s))) return nullptr;','if (!note(cudaMallocAsync(&p, bytes, s))) return nullptr;')]),
dict(slug='reserved-high-read-as-current',
 shows="default output: 'pool reserved at most 0 MiB for blocks of 32 MiB' (both streams synchronised, the threshold of 0 has given everything back by the time it is read); rounds and sums right",
 mistake="reserved_high reads cudaMemPoolAttrReservedMemCurrent, taking 'reserved' for the figure asked for",
 why="the current figure is what the pool holds now, after every block went back; the most it held at once is the high-water mark, cudaMemPoolAttrReservedMemHigh",
 source="own (the file: the most the pool has reserved at once; a current figure read for a high-water mark)",
 edits=[('cudaMemPoolAttrReservedMemHigh, &v','cudaMemPoolAttrReservedMemCurrent, &v')]),
]
