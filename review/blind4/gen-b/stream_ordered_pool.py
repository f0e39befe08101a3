STUDENT = "exercises/day088/stream_ordered_pool.h"
DIR = "stream-ordered-pool"
EXT = "h"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: one event per block (made at the block's first free, recorded again at each free), not one per stream; the free blocks kept in one queue in the order they were freed, each block's record naming the stream that freed it last; allocate takes the stream's own most recent free, else a fresh block, else steals the block freed longest ago (the likeliest to be done already) and makes the stream wait for that block's event.",
    "why it is wrong": "it is not: the lesson leaves \"how many events the pool makes, when one can be recorded again\" to the student. A block's event is recorded again only at its next free, after any steal's wait on the earlier record was queued (cudaStreamWaitEvent waits for the record it saw), so each steal waits for exactly the free it needs and for nothing else.",
    "source": "own design; per-block events as in NVIDIA/cuCascade#158 (an event \"stored ... alongside the slab on the free list\"); the re-record rule from the runtime reference of cudaStreamWaitEvent (\"Once this call has returned, any functions (including cudaEventRecord() and cudaEventDestroy()) may be called on event again\")",
}
CORRECT = [
("""#include <map>
#include <vector>""", """#include <deque>
#include <iterator>
#include <map>
#include <vector>"""),
("""        // TODO 1: return a block s may use once it gets there in its own
        // order: nullptr only when no block is free anywhere, no wait on
        // the host, and own, fresh or stolen counted by where it came
        // from (a block s freed itself, one never used, another's).
        (void)s;
        return nullptr;""", """        // s's own most recent free: nothing to wait for.
        for (auto it = freed_.rbegin(); it != freed_.rend(); ++it) {
            if (info_.at(*it).by != s) continue;
            char* p = *it;
            freed_.erase(std::next(it).base());
            own++;
            return p;
        }
        if (!fresh_.empty()) {
            char* p = fresh_.back();
            fresh_.pop_back();
            fresh++;
            return p;
        }
        if (freed_.empty()) return nullptr;   // every block is handed out
        // Another stream's: the one freed longest ago, s after its free.
        char* p = freed_.front();
        freed_.pop_front();
        CHECK(cudaStreamWaitEvent(s, info_.at(p).ev, 0));
        stolen++;
        return p;"""),
("""        // TODO 2: keep p, with whatever another stream would need to
        // know before it may use p safely.
        (void)p;
        (void)s;""", """        char* b = static_cast<char*>(p);
        Info& i = info_[b];
        if (i.ev == nullptr) CHECK(cudaEventCreateWithFlags(&i.ev, cudaEventDisableTiming));
        i.by = s;
        CHECK(cudaEventRecord(i.ev, s));   // free once s's work so far is done
        freed_.push_back(b);"""),
("""        // TODO 3: destroy what the pool made, then give the chunk back.
        CHECK(cudaFreeAsync(chunk_, setup_));""", """        // The events first, then the chunk.
        for (auto& e : info_)
            if (e.second.ev != nullptr) CHECK(cudaEventDestroy(e.second.ev));
        info_.clear();
        freed_.clear();
        CHECK(cudaFreeAsync(chunk_, setup_));"""),
("""    // TODO 0: what the pool keeps of the blocks given back, and of
    // the streams that gave them back.""", """    // Of each block ever given back: its event, recorded at each free,
    // and the stream that freed it last.
    struct Info {
        cudaEvent_t ev = nullptr;
        cudaStream_t by = nullptr;
    };
    std::map<char*, Info> info_;
    std::deque<char*> freed_;   // the free blocks, oldest free first"""),
]

WRONG = [
    ("wait-on-null-stream", {
        "kind": "race (a wait on the wrong stream: the legacy NULL stream)",
        "mistake": "a steal makes the NULL stream wait for the block's event (cudaStreamWaitEvent(0, ev, 0)) instead of s, from the old reference's sentence that a wait on the NULL stream makes \"any future work submitted in any stream\" wait.",
        "why it is wrong": "the harness's streams are non-blocking (bench.cu: cudaStreamNonBlocking): they never wait for the legacy stream, so the stealing stream's fill may overwrite the block while the freeing stream's check still reads it. The lesson's Day 87 section says it of cudaMemset: non-blocking streams \"do not wait for that stream\".",
        "source": "the CUDA driver API reference of cuStreamWaitEvent in its CUDA 4 era wording (\"If hStream is 0 (the NULL stream) any future work submitted in any stream will wait for hEvent\"), still served at cs.cmu.edu/afs/cs/academic/class/15668-s11/www/cuda-doc/html/group__CUDA__STREAM_g6a898b652dfc6aa1d5c8d97062618b2f.html; it does not hold for non-blocking streams",
    }, [
        ("        CHECK(cudaStreamWaitEvent(s, info_.at(p).ev, 0));",
         "        CHECK(cudaStreamWaitEvent(0, info_.at(p).ev, 0));   // the NULL stream: every stream waits"),
    ]),
    ("owner-set-at-first-free", {
        "kind": "race (a missing wait: a block's freeing stream remembered from its first free only)",
        "mistake": "deallocate records the block's stream only when it makes the block's event (its first free); later frees record the event on the new stream but leave the old owner.",
        "why it is wrong": "a block freed first on A, then stolen by B and freed on B, is still listed as A's: A takes it back as its own, with no wait, while B's kernels may still read it. It happens in the default run as soon as blocks start to be stolen, and in every hand-off of the hidden run (the lesson: \"the block is then the freeing stream's\").",
        "source": "own",
    }, [
        ("""        if (i.ev == nullptr) CHECK(cudaEventCreateWithFlags(&i.ev, cudaEventDisableTiming));
        i.by = s;""", """        if (i.ev == nullptr) {
            CHECK(cudaEventCreateWithFlags(&i.ev, cudaEventDisableTiming));
            i.by = s;
        }"""),
    ]),
    ("erase-reverse-iterator-base", {
        "kind": "off by one (a reverse iterator's base() erases the element after it)",
        "mistake": "the own-list lookup walks the queue with a reverse iterator and erases it.base() instead of std::next(it).base().",
        "why it is wrong": "it.base() points one past the element it names: the block handed out stays in the free queue, and its neighbour is dropped from it (or, when the block found is the newest, erase(end()) is undefined). A block still listed free is handed out a second time while the first taker uses it: two streams write the same block.",
        "source": "GeeksforGeeks, \"How to erase an element from a vector using erase() and reverse_iterator?\" (\"&*(reverse_iterator(itr))==&*(itr-1)\", so erase needs (itr + 1).base()); codegenes.net, \"How to Call erase with a Reverse Iterator in C++\"",
    }, [
        ("            freed_.erase(std::next(it).base());",
         "            freed_.erase(it.base());"),
    ]),
    ("steal-only-finished", {
        "kind": "a refusal while a block is free (an event query used instead of a wait)",
        "mistake": "to never wait at all, a steal looks for a block whose event cudaEventQuery says is complete, and returns nullptr when none is.",
        "why it is wrong": "the lesson: \"no refusal while a block is free ... it takes a block another stream freed, even one whose work is still running, and waits for that work on the GPU\". The host runs ahead of the kernels, so the blocks other streams freed are usually still in use when a busy stream needs one, and the harness stops with \"the pool had no block\".",
        "source": "own (the refusal a first stream-ordered pool makes when it treats a query as the whole answer; cf. NVIDIA-Merlin/HierarchicalKV#161, where a pool test failed because \"the CUDA event appended to the stream is not yet triggered\")",
    }, [
        ("""        char* p = freed_.front();
        freed_.pop_front();
        CHECK(cudaStreamWaitEvent(s, info_.at(p).ev, 0));
        stolen++;
        return p;""", """        for (auto it = freed_.begin(); it != freed_.end(); ++it) {
            cudaError_t q = cudaEventQuery(info_.at(*it).ev);
            if (q == cudaErrorNotReady) continue;
            CHECK(q);
            char* p = *it;
            freed_.erase(it);
            stolen++;
            return p;   // its work is over: no wait needed
        }
        return nullptr;"""),
    ]),
    ("last-fresh-block-unused", {
        "kind": "a latent branch the defaults never take (off by one: the last fresh block is never handed out)",
        "mistake": "allocate takes a fresh block only while more than one is left (fresh_.size() > 1), so the last untouched block is never used; with nothing freed yet it answers nullptr.",
        "why it is wrong": "\"allocate says nullptr only when every block is handed out\". With the default 8 blocks the streams never hold more than three at once and a freed block is always there to steal, so the default run passes; a pool of 3 blocks (bench 16 3) refuses the busy stream's third block in round 0.",
        "source": "own",
    }, [
        ("        if (!fresh_.empty()) {", "        if (fresh_.size() > 1) {"),
    ]),
]
