import sys; sys.path.insert(0, '.')
from mk import build, sub
src = open('../../exercises/day068/block_pool.cu').read()
D = 'block-pool/'
correct = [
("""private:
    // TODO 1: what the pool keeps: its classes, where each block starts,
    // which blocks are handed out, and, for each block given back, what
    // tells when the work queued before its deallocate is done.
};""",
"""private:
    enum State : unsigned char { Free, Out };
    char* base_ = nullptr;
    size_t total_ = 0;
    std::vector<size_t> classBytes_;  // each class's size, ascending
    std::vector<size_t> stride_;      // each class's size rounded up to kAlign
    std::vector<size_t> first_;       // index of each class's first block
    size_t blocks_ = 0;               // blocks per class
    std::vector<size_t> offset_;      // where each block starts in base_
    std::vector<State> state_;        // handed out or not
    std::vector<cudaEvent_t> done_;   // recorded at each block's deallocate
    int indexOf(const void* p) const;
};

static size_t roundUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

// indexOf is the block starting at p, or -1.
int BlockPool::indexOf(const void* p) const {
    const char* c = static_cast<const char*>(p);
    if (base_ == nullptr || c < base_ || c >= base_ + total_) return -1;
    const size_t off = (size_t)(c - base_);
    for (size_t k = 0; k < classBytes_.size(); k++) {
        const size_t lo = offset_[first_[k]];
        const size_t hi = lo + stride_[k] * blocks_;
        if (off < lo || off >= hi) continue;
        if ((off - lo) % stride_[k] != 0) return -1;
        return (int)(first_[k] + (off - lo) / stride_[k]);
    }
    return -1;
}""" ),
("""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    (void)classBytes;
    (void)blocks;
    return cudaErrorNotYetImplemented;
}""",
"""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    if (classBytes.empty() || blocks == 0) return cudaErrorInvalidValue;
    classBytes_ = classBytes;
    blocks_ = blocks;
    size_t off = 0;
    for (size_t c : classBytes) {
        first_.push_back(offset_.size());
        stride_.push_back(roundUp(c, kAlign));
        for (size_t i = 0; i < blocks; i++) {
            offset_.push_back(off);
            off += stride_.back();
        }
    }
    // The last block needs only its class's bytes, not the whole stride.
    total_ = off - stride_.back() + classBytes.back();
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, total_);
    if (err != cudaSuccess) return err;
    base_ = static_cast<char*>(p);
    state_.assign(offset_.size(), Free);
    done_.assign(offset_.size(), nullptr);
    for (cudaEvent_t& e : done_) {
        err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        if (err != cudaSuccess) {
            destroy();
            return err;
        }
    }
    return cudaSuccess;
}""" ),
("""void* BlockPool::allocate(size_t bytes) {
    (void)bytes;
    return nullptr;
}""",
"""void* BlockPool::allocate(size_t bytes) {
    if (bytes == 0) bytes = 1;
    size_t k = 0;
    while (k < classBytes_.size() && classBytes_[k] < bytes) k++;
    if (k == classBytes_.size()) return nullptr;
    for (size_t i = first_[k]; i < first_[k] + blocks_; i++) {
        if (state_[i] != Free) continue;
        // An event never recorded answers cudaSuccess; one whose work is
        // still queued answers cudaErrorNotReady, and we look further.
        if (cudaEventQuery(done_[i]) != cudaSuccess) continue;
        state_[i] = Out;
        return base_ + offset_[i];
    }
    return nullptr;
}""" ),
("""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    (void)block;
    (void)stream;
    return false;
}""",
"""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    const int i = indexOf(block);
    if (i < 0 || state_[i] != Out) return false;
    if (cudaEventRecord(done_[i], stream) != cudaSuccess) return false;
    state_[i] = Free;
    return true;
}""" ),
("""void BlockPool::destroy() {
}""",
"""void BlockPool::destroy() {
    for (cudaEvent_t& e : done_) {
        if (e != nullptr) cudaEventDestroy(e);
        e = nullptr;
    }
    if (base_ != nullptr) cudaFree(base_);
    base_ = nullptr;
    total_ = 0;
    done_.clear();
    state_.clear();
}""" ),
]
H = """kind: correct
mistake: none: one cudaMalloc laid out class by class, each block's stride its class
  rounded up to 256 bytes (the last block only its class's bytes), one event per block
  recorded on deallocate's stream, allocate hands out a free block whose event
  cudaEventQuery says cudaSuccess (never a wait), refusals change nothing.
why it is wrong: it is not (lesson day 68, "A fixed-size block pool": remember the point
  with cudaEventRecord, hand out again only when cudaEventQuery says cudaSuccess).
source: own"""
body = build(src, D + 'correct.cu', H, correct)

def wrong(slug, header, pairs):
    build(body, D + 'wrong-' + slug + '.cu', header, pairs)

wrong('pool-oversized', """kind: wrong (over-allocation the output does not show)
mistake: init asks cudaMalloc for every class rounded up to the stride and then one more
  kAlign "for safety", instead of what the layout needs.
why it is wrong: the exercise asks for the allocation "no larger than that needs"
  (lesson day 68, exercise block-pool: "no byte more than that needs"); students pad
  allocations by habit, which wastes memory and hides an off-by-one in the layout.
source: own""", [
("""    total_ = off - stride_.back() + classBytes.back();""",
"""    total_ = off + kAlign; // a little slack, in case a block runs over"""),
])

wrong('events-not-destroyed', """kind: wrong (leak the output does not show)
mistake: destroy() frees the pool's memory but forgets the per-block events.
why it is wrong: every cudaEventCreate needs its cudaEventDestroy (CUDA Runtime API,
  cudaEventDestroy); the lesson's exercise says destroy "gives back everything the pool
  made", and the checks watch that every event is destroyed. The program's output is the
  same.
source: own""", [
("""    for (cudaEvent_t& e : done_) {
        if (e != nullptr) cudaEventDestroy(e);
        e = nullptr;
    }
    if (base_""", """    if (base_"""),
])

wrong('double-free-once-done', """kind: wrong (a branch the defaults never take)
mistake: deallocate refuses a second free only while the block's first free is still
  pending on the GPU (its event not yet complete); a block given back whose work is done
  is accepted again and its event recorded again, as if it had been handed out.
why it is wrong: the exercise says deallocate returns false "for a block that is not
  handed out (already given back, done or not)"; a double free accepted after the work
  is done puts the same block on the list twice in a free-list design, and here it
  re-records the event so the block looks busy on a stream that never owned it. The
  harness's double frees come right after the first, while the work is still queued.
source: own""", [
("""    if (i < 0 || state_[i] != Out) return false;""",
"""    if (i < 0) return false;
    // Already given back and its work still queued: a double free.
    if (state_[i] != Out && cudaEventQuery(done_[i]) == cudaErrorNotReady) return false;"""),
])

wrong('init-clears-legacy-stream', """kind: wrong (race the output does not show)
mistake: init clears the whole arena with a plain cudaMemset after the cudaMalloc, on
  the legacy default stream, then hands blocks to requests on non-blocking streams that
  never wait for it.
why it is wrong: cudaMemset is asynchronous with respect to the host for device memory,
  and streams created with cudaStreamNonBlocking do not synchronise with the legacy
  stream (CUDA Runtime API, "Stream synchronization behavior"; cudaStreamCreateWithFlags),
  so the clear may land after a request's first writes. On a fast GPU the memset has
  finished before the first kernel starts, so no word is seen overwritten.
source: https://wrfranklin.org/wiki/ParallelComputingSpring2015/o/nvidia/cuda6doc/html/cuda-driver-api/stream-sync-behavior.html
  (NVIDIA's "Stream synchronization behavior": non-blocking streams do not synchronise
  with the NULL stream); the kind is the one issue 36 names""", [
("""    base_ = static_cast<char*>(p);
    state_.assign""", """    base_ = static_cast<char*>(p);
    err = cudaMemset(base_, 0, total_); // start from a clean arena
    if (err != cudaSuccess) return err;
    state_.assign"""),
])

