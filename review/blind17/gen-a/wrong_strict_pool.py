WRONG = [
 dict(slug='event-dependencies-turned-off-too',
  shows="default output: B never gets A's block: '0 of 6 rounds: B reused the block A freed' and 'pool reserved at most 64 MiB for blocks of 32 MiB' (32 wanted); the sums and the policy line right",
  mistake='the constructor sets all three reuse policies to 0, following event dependencies included, \'a strict pool allows no reuse policy\'',
  why='the exercise turns off only the two policies that let a block cross streams without the program; with following event dependencies off too, the pool ignores the hand\'s wait, and a block freed on A never reaches B',
  source='own',
  edits=[('int off = 0, on = 1;', 'int off = 0, on = 0;')]),
 dict(slug='hand-spins-until-the-record-is-done',
  shows='host waits (a polling loop), and time: every hand spins on cudaEventQuery until from\'s work is done before it queues the wait; the rounds, reuse and sums right',
  mistake='hand records the event and then loops on cudaEventQuery until it answers done, \'so that the block really is free\', before queueing to\'s wait',
  why='the host must not wait: a loop asking the event until its work ends is a host wait like cudaEventSynchronize; the stream wait alone already orders to after from',
  source='own',
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
 dict(slug='ring-events-never-destroyed',
  shows='the record only: the four events the constructor made are never destroyed (a leak of four events); the output right',
  mistake='the destructor destroys the pool only, \'the events go with the pool\'',
  why='events are not the pool\'s: each cudaEventCreateWithFlags needs its cudaEventDestroy; the destructor must undo everything the constructor made',
  source='own',
  edits=[('''    for (cudaEvent_t& e : ring_)
        if (e != nullptr) {
            cudaEventDestroy(e);
            e = nullptr;
        }
    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);''', '''    if (pool_ != nullptr) cudaMemPoolDestroy(pool_);''')]),
]
