"""The wrong files of blind23 (half B): for each, its exercise, slug, the
file's extension, the header's four fields, and the edits (old, new) that
make it from the exercise's correct file. make_wrong.py writes them."""
WRONGS = []

def wrong(ex, ext, slug, where, mistake, why, source, *edits):
    WRONGS.append(dict(ex=ex, ext=ext, slug=slug, where=where, mistake=mistake, why=why, source=source, edits=edits))

# ---- stream-ordered-pool ----
SOP = ('stream-ordered-pool', 'h')
wrong(*SOP, 'entry-numbered-before-its-record',
      "a race, the record only: every thief's first steal from a giver queues no wait at all, and later steals may skip the wait for the giver's newest record; errors in the printed line only by timing, likeliest with SPIN_US",
      "deallocate files the block with the giver's record count as it stands BEFORE recording the event and counting the record, so each block carries the number of the record before its own",
      "a block numbered R - 1 is taken for covered by a thief that waited behind record R - 1, which came before the block's give-back and holds none of the work queued since; a giver's first block is numbered 0, which every thief already 'waits behind', so the first steal from each giver is never ordered at all",
      "related: NVIDIA/cub#156 (a block listed as free before its event is recorded: another stream reads a stale record)",
      ('''        CHECK(cudaEventRecord(m.ev, s));
        m.recs++;
        kept_[s].push_back(Kept{static_cast<char*>(p), m.recs});''',
       '''        kept_[s].push_back(Kept{static_cast<char*>(p), m.recs});
        CHECK(cudaEventRecord(m.ev, s));
        m.recs++;'''))
wrong(*SOP, 'waited-mark-shared-by-every-thief',
      "a race, the record only: once one stream waited on a giver's record, every other stream that steals a block that giver gave back before it queues no wait; errors in the printed line only by timing (SPIN_US)",
      "the number of the record already waited for is kept once per giver (a field of its Mark), not per (thief, giver) pair: 'the giver remembers it was waited for'",
      "a wait orders only the stream that queued it: stream C stealing after stream B waited is ordered after nothing of the giver's, and may fill the block while the giver's kernels still read it",
      "own",
      ('''        unsigned long recs = 0;
    };''', '''        unsigned long recs = 0;
        unsigned long waited = 0;   // the latest record a thief already waits behind
    };'''),
      ('''            unsigned long& behind = waited_[std::make_pair(s, kv.first)];''',
       '''            unsigned long& behind = m.waited;'''))
wrong(*SOP, 'busy-giver-waited-for-on-the-host',
      "the record only, and only under some timings: a host wait (cudaEventSynchronize) at each steal whose giver still has work queued, surely with SPIN_US; the printed lines right, the order right",
      "where the thief is not yet behind the block's record, the steal asks cudaEventQuery and, while the giver's event is not done, calls cudaEventSynchronize on it instead of queuing cudaStreamWaitEvent: 'wait only when it has to, and skip the wait when it is done'",
      "the pool must never make the host wait: a busy giver stops the host in allocate until its kernels end, which a cudaStreamWaitEvent would have left to the GPU (the steal is safe either way, so nothing but the wait shows)",
      "related: cms-patatrack/pixeltrack-standalone#218 (a caching allocator that decides on the host whether a block's event is done)",
      ('''                CHECK(cudaStreamWaitEvent(s, m.ev, 0));''',
       '''                if (cudaEventQuery(m.ev) == cudaErrorNotReady) CHECK(cudaEventSynchronize(m.ev));'''))
wrong(*SOP, 'one-record-for-a-run-of-give-backs',
      "other arguments only (--handoff): a race in the record at the steals of every run of give-backs on one stream with kernels queued between them (the hand-offs' reads on the next stream, and the last stream's own blocks after the third stream's); the default run right (a stream's give-backs there follow all its kernels)",
      "deallocate records the giver's event only when the previous give-back came from another stream, 'the record made for the first block of a run covers the run'; later blocks of a run carry the run's first record number",
      "a record holds only the work queued before it: with --handoff a stream reads block k, gives it back, reads block k + 1 and gives it back, and the record made at the first give-back holds nothing of the second read, so a thief may fill block k + 1 while it is read",
      "related: chelsea0x3b/cudarc#386 (event records skipped to save calls)",
      ('''    std::map<cudaStream_t, Mark> marks_;               // by giving stream''',
       '''    std::map<cudaStream_t, Mark> marks_;               // by giving stream
    cudaStream_t last_ = nullptr;                      // the stream of the latest give-back'''),
      ('''        CHECK(cudaEventRecord(m.ev, s));
        m.recs++;''', '''        if (s != last_ || m.recs == 0) {
            CHECK(cudaEventRecord(m.ev, s));
            m.recs++;
        }
        last_ = s;'''))
