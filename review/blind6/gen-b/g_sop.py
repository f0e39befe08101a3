import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mk import *
src=open('exercises/day088/stream_ordered_pool.h').read()
i=src.index('    void* allocate(cudaStream_t s) {'); j=src.index('private:')
src=src[:i]+'''    void* allocate(cudaStream_t s) {
        std::vector<int>& mine = freed_[s];
        if (!mine.empty()) {   // s's own order already puts its free first
            const int b = mine.back();
            mine.pop_back();
            own++;
            return block(b);
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        for (auto& kv : freed_) {
            if (kv.first == s || kv.second.empty()) continue;
            const int b = kv.second.back();
            kv.second.pop_back();
            // s comes after the work the other stream queued before its free.
            CHECK(cudaStreamWaitEvent(s, done_[b], 0));
            stolen++;
            return block(b);
        }
        return nullptr;
    }

    void deallocate(void* p, cudaStream_t s) {
        const int b = index(p);
        CHECK(cudaEventRecord(done_[b], s));
        freed_[s].push_back(b);
    }

    ~StreamOrderedPool() {
        for (cudaEvent_t e : done_) CHECK(cudaEventDestroy(e));
        CHECK(cudaFreeAsync(chunk_, setup_));
    }

'''+src[j:]
src=rep(src,'''        for (int i = blocks - 1; i >= 0; i--) fresh_.push_back(chunk_ + i * blockBytes);''','''        for (int i = blocks - 1; i >= 0; i--) fresh_.push_back(chunk_ + i * blockBytes);
        // One event per block, for the whole life of the pool: recorded when
        // the block is given back, waited on by a stream that takes it from
        // another. A block is given back again only after it was handed out
        // again, so a wait already queued keeps the record it saw.
        done_.resize(blocks);
        for (auto& e : done_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));''')
src=rep(src,'''    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.
''','''    std::map<cudaStream_t, std::vector<int>> freed_;   // blocks given back, by the stream that gave them back
    std::vector<cudaEvent_t> done_;                     // per block: its last give-back
    char* block(int b) const { return chunk_ + (size_t)b * block_; }
    int index(void* p) const { return (int)(((char*)p - chunk_) / (ptrdiff_t)block_); }
''')
ex='stream-ordered-pool'
write(ex,'correct.h',['kind: correct',
 'mistake: none. The design: one event per block, made in the constructor and kept for the pool\'s life, recorded at each',
 'give-back on the giving stream; free lists by stream in a std::map of block indices; a steal takes the back of the first other',
 'stream\'s list and waits that block\'s event; own reuse waits for nothing.',
 'why it is wrong: -','source: -'],src)
# O1: a ring of one event per stream count, shared by all blocks
o1=rep(src,'''        done_.resize(blocks);
        for (auto& e : done_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));''','''        // Four streams at most give blocks back at once: a ring of four
        // events is enough, each give-back taking the next one.
        done_.resize(4);
        for (auto& e : done_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        slot_.assign(blocks, 0);''')
o1=rep(o1,'''        CHECK(cudaEventRecord(done_[b], s));''','''        slot_[b] = next_;
        next_ = (next_ + 1) % (int)done_.size();
        CHECK(cudaEventRecord(done_[slot_[b]], s));''')
o1=o1.replace('CHECK(cudaStreamWaitEvent(s, done_[b], 0));','CHECK(cudaStreamWaitEvent(s, done_[slot_[b]], 0));')
o1=rep(o1,'''    std::vector<cudaEvent_t> done_;                     // per block: its last give-back''','''    std::vector<cudaEvent_t> done_;                     // a ring of events
    std::vector<int> slot_;                             // per block: the ring event of its give-back
    int next_ = 0;''')
write(ex,'wrong-event-ring-of-four.h',['kind: wrong',
 'mistake: a ring of four events (one per stream, the student reasons) stands in for each block\'s own: every give-back records the',
 'next event of the ring, and a steal waits the ring event its block was given.',
 'why it is wrong: six and more blocks are given back a round, so the ring wraps: a later give-back on ANOTHER stream records over',
 'the event a still-free block points to, and a stream stealing that block then waits for the wrong stream\'s work, not for the',
 'kernels that still read the block. The output is right unless the race lands; the record sees an unordered reuse.',
 'source: torch/cutorch#222 (one event recorded on several streams: the wait only covers the last record)'],o1)
# O2: the give-back recorded on the stream that took the block, not the one that gives it back
o2=rep(src,'''        const int b = index(p);
        CHECK(cudaEventRecord(done_[b], s));
        freed_[s].push_back(b);''','''        const int b = index(p);
        // The block's work runs on the stream that took it: record there.
        CHECK(cudaEventRecord(done_[b], taker_[b]));
        freed_[s].push_back(b);''')
o2=o2.replace('''            own++;
            return block(b);''','''            own++;
            taker_[b] = s;
            return block(b);''')
o2=rep(o2,'''            fresh_.pop_back();
            fresh++;''','''            fresh_.pop_back();
            fresh++;
            taker_[index(p)] = s;''')
o2=rep(o2,'''            stolen++;
            return block(b);''','''            stolen++;
            taker_[b] = s;
            return block(b);''')
o2=rep(o2,'''        done_.resize(blocks);''','''        done_.resize(blocks);
        taker_.assign(blocks, setup);''')
o2=rep(o2,'''    std::vector<cudaEvent_t> done_;                     // per block: its last give-back''','''    std::vector<cudaEvent_t> done_;                     // per block: its last give-back
    std::vector<cudaStream_t> taker_;                   // per block: the stream that took it''')
write(ex,'wrong-give-back-recorded-on-the-taker.h',['kind: wrong',
 'mistake: deallocate records the block\'s event on the stream that took the block (remembered at allocate), not on the stream s',
 'that gives it back; the block is filed under s.',
 'why it is wrong: when a block is given back on another stream than its taker (bench --handoff: the next stream reads it and',
 'frees it), the event says nothing of the giving stream\'s reads, so a stream that steals it overwrites it while they run. Without',
 '--handoff taker and giver are the same and the run is right.',
 'source: pytorch/pytorch#23729 (the caching allocator knows only the stream a block was allocated on: a use on another stream',
 'lets the memory be reused under it), NVIDIA/TensorRT-LLM#15265'],o2)
# O3: steal waits on the host
o3=rep(src,'''            // s comes after the work the other stream queued before its free.
            CHECK(cudaStreamWaitEvent(s, done_[b], 0));''','''            // The block is safe once the other stream's work before its
            // free is done.
            CHECK(cudaEventSynchronize(done_[b]));''')
write(ex,'wrong-steal-synchronizes-the-event.h',['kind: wrong',
 'mistake: a steal makes the host wait for the block\'s event with cudaEventSynchronize instead of making s wait for it on the GPU.',
 'why it is wrong: the pool must never make the host wait; the steal blocks the host until the freeing stream\'s kernels end, so',
 'the streams stop overlapping (the timed check) and the record counts a host wait. The data come out right.',
 'source: lsds/KungFu#65 (host synchronize where an event record and a stream wait were wanted)'],o3)
