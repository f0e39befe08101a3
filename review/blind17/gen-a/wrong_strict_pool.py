WRONG = [
 dict(slug='wait-taken-from-the-next-ring-slot',
  shows="default output: to waits on the ring's next event, recorded three hands before (or never, in the first rounds), not on the record just made: B is never ordered after A's put, so with opportunistic reuse off it cannot take A's block: '0 of 6 rounds: B reused the block A freed' and 'pool reserved at most 64 MiB for blocks of 32 MiB' (32 wanted); with LATE 1 some sums may be short (B's add before A's copy)",
  mistake='hand records ring_[next_], moves next_ on, and then queues to\'s wait on ring_[next_], the slot after the one it recorded',
  why='the wait must take the record hand has just made on from; the next slot holds an older record (or none), so to is ordered after some earlier work of from, not after its latest put',
  source='own',
  edits=[("""    if (keep(cudaEventRecord(e, from))) keep(cudaStreamWaitEvent(to, e, 0));""",
          """    if (keep(cudaEventRecord(e, from))) keep(cudaStreamWaitEvent(to, ring_[next_], 0));""")]),
 dict(slug='hand-spins-until-the-record-is-done',
  shows='host waits (a polling loop), and time: every hand spins on cudaEventQuery until from\'s work is done before it queues the wait; the rounds, reuse and sums right',
  mistake='hand records the event and then loops on cudaEventQuery until it answers done, \'so that the block really is free\', before queueing to\'s wait',
  why='the host must not wait: a loop asking the event until its work ends is a host wait like cudaEventSynchronize; the stream wait alone already orders to after from',
  source='tensorflow/tensorflow#6224 (a host thread that polls CUDA events over and over to learn that GPU work is over)',
  edits=[('    if (keep(cudaEventRecord(e, from))) keep(cudaStreamWaitEvent(to, e, 0));',
          '''    if (keep(cudaEventRecord(e, from))) {
        while (cudaEventQuery(e) == cudaErrorNotReady) {
        }
        keep(cudaStreamWaitEvent(to, e, 0));
    }''')]),
 dict(slug='ring-index-wraps-one-late',
  shows="default output: the fifth hand (round 3's first) takes ring_[4], one past the ring, which reads next_'s own bytes as an event handle: the record fails ('invalid resource handle', or a crash) and main stops at round 3; rounds 1 and 2 right",
  mistake='hand moves to the next event with if (++next_ > kRing) next_ = 0, the test one too late, instead of wrapping at kRing',
  why='the ring holds kRing events, indices 0 to kRing - 1; wrapping only past kRing lets next_ reach kRing and reads past the array',
  source='own',
  edits=[('    next_ = (next_ + 1) % kRing;\n', '    if (++next_ > kRing) next_ = 0;\n')]),
 dict(slug='policy-read-from-the-devices-default-pool',
  shows="default output: 'pool: opportunistic 1, internal dependencies 1' (the default pool's values; 0 and 0 wanted); the rounds, reuse and sums right, since the program's own pool is set right",
  mistake='policy() asks the device\'s default pool (cudaDeviceGetDefaultMemPool) for the attribute, \'the device\'s pool says how the device reuses memory\', instead of the StrictPool\'s own pool',
  why='each pool has its own reuse policies: the default pool keeps its defaults (all on) whatever the program set on its own pool, so the answer says nothing of the pool the program uses',
  source='own',
  edits=[("""    int v = -1;
    if (pool_ == nullptr || !keep(cudaMemPoolGetAttribute(pool_, attr, &v))) return -1;""", """    int v = -1;
    cudaMemPool_t dev = nullptr;
    if (!keep(cudaDeviceGetDefaultMemPool(&dev, 0))) return -1;
    if (!keep(cudaMemPoolGetAttribute(dev, attr, &v))) return -1;""")]),
]
