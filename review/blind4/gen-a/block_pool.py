from mk import build

CORRECT = dict(
    kind='correct (a design of its own)',
    mistake='none. The pool keeps, for each class, a queue of the blocks given back, each with the event recorded at its deallocate (none for a block never handed out); allocate scans the whole queue of the request\'s class and takes the first block whose event says cudaSuccess. Events come from a spare list made in init, one per block, so no event is made or destroyed after init, and a block holds its event only while it waits in the queue.',
    **{'why it is wrong': 'it is not: a block is handed out only when the work queued before its deallocate is done (cudaEventQuery, no wait), bad frees are refused before anything changes, and the one cudaMalloc is no larger than the last block\'s end.'},
    source='the lesson (day 68, "A fixed-size block pool"); the runtime API reference, cudaEventQuery and cudaEventRecord.',
)

C = [
("""#include <vector>
#include <cuda_runtime.h>""",
"""#include <vector>
#include <deque>
#include <cuda_runtime.h>"""),
("""private:
    // TODO 1: what the pool keeps: its classes, where each block starts,
    // which blocks are handed out, and, for each block given back, what
    // tells when the work queued before its deallocate is done.
};""",
"""private:
    // A class: its size, the distance between its blocks, and where its
    // first block starts in base_.
    struct Class {
        size_t bytes, stride, start;
    };
    // A block given back and not handed out since: its index, and the
    // event recorded on the stream of its deallocate (nullptr: no work was
    // ever queued on it).
    struct Back {
        int block;
        cudaEvent_t done;
    };
    char* base_ = nullptr;
    size_t total_ = 0;
    size_t perClass_ = 0;
    std::vector<Class> classes_;
    std::vector<bool> out_;                // by block index: handed out
    std::vector<std::deque<Back>> back_;   // by class: blocks given back, oldest first
    std::vector<cudaEvent_t> spare_;       // events no waiting block holds
    std::vector<cudaEvent_t> made_;        // every event init made
    // blockAt is the index of the block that starts at p, or -1.
    int blockAt(const void* p) const;
    void clear();
};

static size_t roundUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

int BlockPool::blockAt(const void* p) const {
    const char* c = static_cast<const char*>(p);
    if (base_ == nullptr || c < base_ || c >= base_ + total_) return -1;
    const size_t off = (size_t)(c - base_);
    for (size_t k = 0; k < classes_.size(); k++) {
        const Class& cl = classes_[k];
        if (off < cl.start || off >= cl.start + cl.stride * perClass_) continue;
        const size_t rel = off - cl.start;
        if (rel % cl.stride != 0) return -1;
        return (int)(k * perClass_ + rel / cl.stride);
    }
    return -1;
}

void BlockPool::clear() {
    for (cudaEvent_t e : made_) cudaEventDestroy(e);
    if (base_ != nullptr) cudaFree(base_);
    base_ = nullptr;
    total_ = perClass_ = 0;
    classes_.clear();
    out_.clear();
    back_.clear();
    spare_.clear();
    made_.clear();
}"""),
("""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    (void)classBytes;
    (void)blocks;
    return cudaErrorNotYetImplemented;
}""",
"""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    if (classBytes.empty() || blocks == 0) return cudaErrorInvalidValue;
    perClass_ = blocks;
    size_t at = 0;
    for (size_t b : classBytes) {
        at = roundUp(at, kAlign);
        Class cl = {b, roundUp(b, kAlign), at};
        classes_.push_back(cl);
        at = cl.start + cl.stride * (blocks - 1) + b;   // the last block needs only its own bytes
    }
    total_ = at;
    cudaError_t err = cudaMalloc(&base_, total_);
    if (err != cudaSuccess) {
        base_ = nullptr;
        clear();
        return err;
    }
    const size_t n = classBytes.size() * blocks;
    out_.assign(n, false);
    back_.resize(classBytes.size());
    for (size_t i = 0; i < n; i++) {
        back_[i / blocks].push_back({(int)i, nullptr});
        cudaEvent_t e;
        err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        if (err != cudaSuccess) {
            clear();
            return err;
        }
        made_.push_back(e);
        spare_.push_back(e);
    }
    return cudaSuccess;
}"""),
("""void* BlockPool::allocate(size_t bytes) {
    (void)bytes;
    return nullptr;
}""",
"""void* BlockPool::allocate(size_t bytes) {
    size_t k = 0;
    while (k < classes_.size() && classes_[k].bytes < bytes) k++;
    if (k == classes_.size()) return nullptr;
    std::deque<Back>& q = back_[k];
    for (auto it = q.begin(); it != q.end(); ++it) {
        if (it->done != nullptr) {
            cudaError_t st = cudaEventQuery(it->done);
            if (st == cudaErrorNotReady) continue;   // its work is still queued: the next one
            if (st != cudaSuccess) continue;         // cannot say: not handed out
            spare_.push_back(it->done);
        }
        const int b = it->block;
        q.erase(it);
        out_[b] = true;
        const Class& cl = classes_[k];
        return base_ + cl.start + cl.stride * (b - k * perClass_);
    }
    return nullptr;
}"""),
("""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    (void)block;
    (void)stream;
    return false;
}""",
"""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    const int b = blockAt(block);
    if (b < 0 || !out_[b] || spare_.empty()) return false;
    cudaEvent_t e = spare_.back();
    if (cudaEventRecord(e, stream) != cudaSuccess) return false;
    spare_.pop_back();
    out_[b] = false;
    back_[b / perClass_].push_back({b, e});
    return true;
}"""),
("""void BlockPool::destroy() {
}""",
"""void BlockPool::destroy() {
    clear();
}"""),
]

W = []

W.append(('spare-event-not-popped', dict(
    kind='a missing step in the event bookkeeping: one event standing for many blocks',
    mistake='deallocate takes spare_.back() and records it, but never pops it off the spare list, so every block given back until the next allocate shares one event, and each record moves the mark of all of them.',
    **{'why it is wrong': 'a wait or query takes the mark of the event\'s last record: blocks given back on busy streams and then others given back on an idle stream all read "done" as soon as the idle stream\'s record completes, and are handed out while their kernels still run (part 3b).'},
    source='NVIDIA/cub#156 (a stale cudaSuccess on a block\'s event lets another caller claim a block the device still uses); the runtime API reference, cudaEventRecord ("will overwrite the previously captured state").',
), [
("""    if (cudaEventRecord(e, stream) != cudaSuccess) return false;
    spare_.pop_back();
""",
"""    if (cudaEventRecord(e, stream) != cudaSuccess) return false;
"""),
]))

W.append(('class-by-stride', dict(
    kind='a wrong size: the class chosen by its rounded stride',
    mistake='allocate picks the first class whose stride (its size rounded up to 256) holds the request, so a request of 1001 to 1024 bytes goes to the 1000-byte class.',
    **{'why it is wrong': 'the lesson says a request of 1001 bytes takes a block of the 3000-byte class; the program clears and fills the whole 3000-byte class it asked for, so a 1000-byte block handed out for it is overrun, and while the class is full the request says nullptr though its own class has blocks.'},
    source='the lesson (day 68, "A fixed-size block pool": a request of 1001 bytes takes a block of the 3000-byte class; a class of 1000-byte blocks lays them 1024 bytes apart).',
), [
("""    while (k < classes_.size() && classes_[k].bytes < bytes) k++;""",
"""    while (k < classes_.size() && classes_[k].stride < bytes) k++;"""),
]))

W.append(('three-classes-fixed', dict(
    kind='a latent branch the default arguments never take',
    mistake='the per-class tables are fixed arrays of three, the number of classes of the default run; init writes past them when the program is given four classes or more.',
    **{'why it is wrong': 'the program takes up to eight classes as arguments (the course runs it with other inputs); with more than three, init overruns the arrays and the pool\'s state is corrupt. The default 1000, 3000, 10000 run never shows it.'},
    source='the student file\'s usage line (block_pool [BLOCKS] [REQUESTS] [CLASS_BYTES...], up to eight classes) and arg(): "the course\'s checks run it with other inputs too".',
), [
("""    std::vector<std::deque<Back>> back_;   // by class: blocks given back, oldest first""",
"""    std::deque<Back> back_[3];             // by class: blocks given back, oldest first (three classes)"""),
("""    back_.clear();
    spare_.clear();""",
"""    for (auto& q : back_) q.clear();
    spare_.clear();"""),
("""    back_.resize(classBytes.size());
""",
""""""),
]))

W.append(('init-leaks-on-event-failure', dict(
    kind='a leak on an error path',
    mistake='when cudaEventCreateWithFlags fails part-way through init, init returns the error at once and keeps the cudaMalloc and the events already made.',
    **{'why it is wrong': 'main stops on the error without calling destroy, so the device memory and every event made so far leak; the caller cannot give back what it was never told it owns. No default run reaches this branch.'},
    source='kvcache-ai/Mooncake#2380 (a resource leaked on a failure path of an allocation routine, fixed by giving back what was made before returning); NVIDIA/open-gpu-kernel-modules#948 (the cleanup path of a failed allocation).',
), [
("""        err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        if (err != cudaSuccess) {
            clear();
            return err;
        }""",
"""        err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        if (err != cudaSuccess) return err;"""),
]))

W.append(('front-of-queue-only', dict(
    kind='ordering: head-of-line blocking in the free queue',
    mistake='allocate looks only at the oldest block given back in the class; if its work is still queued it says nullptr, though a younger block behind it is done.',
    **{'why it is wrong': 'the exercise asks for a block of the class whose work is done whenever there is one: with blocks given back on busy streams before others given back with no work (part 3b), the done blocks are never handed out while the first one is busy, and the pool says nullptr.'},
    source='the lesson (day 68: allocate "looks at the next block, or says nullptr"); NVIDIA/cub#373 (a caching allocator whose reuse test decides per cached block, each with its own ready_event).',
), [
("""            if (st == cudaErrorNotReady) continue;   // its work is still queued: the next one
            if (st != cudaSuccess) continue;         // cannot say: not handed out""",
"""            if (st != cudaSuccess) return nullptr;   // the oldest is not done yet: nothing is"""),
]))

build('block-pool', 'exercises/day068/block_pool.cu', CORRECT, C, W)
