EXERCISE = 'block-pool'
STUDENT = 'exercises/day068/block_pool.cu'
EXT = 'cu'
TODO = [
("""    // TODO 1: what the pool keeps: its classes, where each block starts,
    // which blocks are handed out, and, for each block given back, what
    // tells when the work queued before its deallocate is done.
};""",
"""    // One cudaMalloc; class c's blocks lie from first_[c] on, stride_[c]
    // apart, so a block is found from its address by arithmetic. Every
    // block has a slot (c * blocks_ + i): whether it is handed out, and
    // an event of its own, made in init and recorded at each deallocate.
    // Each class keeps the slots given back on a stack, the last given
    // back on top; allocate looks through the whole stack, from the top,
    // for a slot whose event says its work is done.
    char* base_ = nullptr;
    size_t blocks_ = 0;
    std::vector<size_t> bytes_, stride_, first_;
    std::vector<unsigned char> out_;
    std::vector<cudaEvent_t> done_;
    std::vector<std::vector<int>> stack_;
    // slot_of is the slot whose block starts at p, or -1.
    int slot_of(const void* p) const;
    // ready says whether the work queued before the slot's last
    // deallocate is done, without waiting.
    bool ready(int slot);
};

int BlockPool::slot_of(const void* p) const {
    if (base_ == nullptr || p == nullptr) return -1;
    const char* q = static_cast<const char*>(p);
    if (q < base_) return -1;
    const size_t off = (size_t)(q - base_);
    for (size_t c = 0; c < bytes_.size(); c++) {
        const size_t end = first_[c] + stride_[c] * blocks_;
        if (off < first_[c] || off >= end) continue;
        const size_t in = off - first_[c];
        if (in % stride_[c] != 0) return -1;
        return (int)(c * blocks_ + in / stride_[c]);
    }
    return -1;
}

bool BlockPool::ready(int slot) {
    cudaError_t e = cudaEventQuery(done_[slot]);
    if (e == cudaErrorNotReady) {
        // A "not ready" answer is no failure: take it back off the
        // runtime's last error (only if it is there: an earlier error,
        // a failed launch, stays for the caller's checks).
        if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();
        return false;
    }
    return e == cudaSuccess;
}"""),
("""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    (void)classBytes;
    (void)blocks;
    return cudaErrorNotYetImplemented;
}""",
"""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    if (classBytes.empty() || blocks == 0) return cudaErrorInvalidValue;
    blocks_ = blocks;
    bytes_ = classBytes;
    size_t total = 0;
    for (size_t b : classBytes) {
        const size_t stride = (b + kAlign - 1) / kAlign * kAlign;
        stride_.push_back(stride);
        first_.push_back(total);
        total += stride * blocks;
    }
    cudaError_t err = cudaMalloc(&base_, total);
    if (err != cudaSuccess) {
        base_ = nullptr;
        return err;
    }
    const size_t slots = classBytes.size() * blocks;
    out_.assign(slots, 0);
    done_.assign(slots, nullptr);
    stack_.assign(classBytes.size(), {});
    for (size_t s = 0; s < slots; s++) {
        err = cudaEventCreateWithFlags(&done_[s], cudaEventDisableTiming);
        if (err != cudaSuccess) {
            done_[s] = nullptr;
            destroy();
            return err;
        }
    }
    // Fresh blocks are on the stacks too; their events were never
    // recorded, and a query of such an event answers cudaSuccess.
    for (size_t c = 0; c < classBytes.size(); c++)
        for (size_t i = blocks; i-- > 0;) stack_[c].push_back((int)(c * blocks + i));
    return cudaSuccess;
}"""),
("""void* BlockPool::allocate(size_t bytes) {
    (void)bytes;
    return nullptr;
}""",
"""void* BlockPool::allocate(size_t bytes) {
    size_t c = 0;
    while (c < bytes_.size() && bytes_[c] < bytes) c++;
    if (c == bytes_.size() || bytes == 0) return nullptr;
    std::vector<int>& st = stack_[c];
    for (size_t k = st.size(); k-- > 0;) {
        const int slot = st[k];
        if (!ready(slot)) continue;
        st.erase(st.begin() + (long)k);
        out_[slot] = 1;
        const size_t i = (size_t)slot - c * blocks_;
        return base_ + first_[c] + i * stride_[c];
    }
    return nullptr;
}"""),
("""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    (void)block;
    (void)stream;
    return false;
}""",
"""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    const int slot = slot_of(block);
    if (slot < 0 || !out_[slot]) return false;
    if (cudaEventRecord(done_[slot], stream) != cudaSuccess) return false;
    out_[slot] = 0;
    stack_[(size_t)slot / blocks_].push_back(slot);
    return true;
}"""),
("""void BlockPool::destroy() {
}""",
"""void BlockPool::destroy() {
    for (cudaEvent_t& e : done_)
        if (e != nullptr) {
            cudaEventDestroy(e);
            e = nullptr;
        }
    if (base_ != nullptr) cudaFree(base_);
    base_ = nullptr;
    done_.clear();
    out_.clear();
    stack_.clear();
    bytes_.clear();
    stride_.clear();
    first_.clear();
}"""),
]
CORRECT = dict(
    kind='correct',
    mistake="none: each class's given-back blocks on a stack (the last given back on top), which allocate looks through whole, from the top, for a block whose own event (made in init, recorded at deallocate) a query says is done; blocks found from their address by arithmetic (the class's range, then the stride); the arena exactly the sum of the rounded strides; a query's not-ready taken back off the last error only when it is the last error (peeked first)",
    **{'why it is wrong': 'it is not: every block has its own event, no block comes out before a query says its work is done, and nothing waits'},
    source='none (written from the lesson and the student file)')
WRONG = [
('only-the-top-of-the-stack-looked-at',
 dict(kind='wrong (order of calls: shows only when a block still in use lies on top of a done one)',
      mistake='allocate looks only at the top of the class stack (the block given back last): when its event is not done it answers nullptr, though done blocks lie under it',
      **{'why it is wrong': 'the exercise asks for nullptr only when the class has no block whose work is done; a stack whose top is busy hides every done block beneath it. The program gives the busy blocks back first in part 3b, so the done ones lie on top and the run prints the reference lines; a caller that gives back a done block first and a busy one after gets nullptr while a done block waits (head-of-line blocking on the newest end instead of the oldest)'},
      source='cms-sw/cmssw#28537 (an event cache that handed back the last returned event while it had not occurred: "need to keep all recorded events until an occurred event is found", not only the first looked at)'),
 [("""    for (size_t k = st.size(); k-- > 0;) {
        const int slot = st[k];
        if (!ready(slot)) continue;""",
   """    // The top is the block given back last: look there.
    for (size_t k = st.size(); k-- > 0;) {
        const int slot = st[k];
        if (!ready(slot)) return nullptr;""")]),
('class-range-from-unrounded-sizes',
 dict(kind='wrong (a size on a boundary: shows only for classes whose padding is large)',
      mistake="slot_of finds a block's class from the range its blocks would fill at their own size (first + bytes * blocks) instead of at their rounded stride, so the last blocks of a class whose padding is large fall outside the range and are refused",
      **{'why it is wrong': 'with the default classes (1000, 3000, 10000 bytes, strides 1024, 3072, 10240) every block start lies inside first + bytes * blocks, so nothing shows; a class of 300 bytes (stride 512) has 8 blocks at 0 to 3584 but a range of 2400 bytes, and deallocate refuses blocks 5 to 7 it handed out ("gave every block back: no"), leaving them lost to the pool'},
      source='NVIDIA/open-gpu-kernel-modules#948 (an unmap range computed from one size where the fragment actually mapped had another: the wrong extent in the bounds of a range)'),
 [("""        const size_t end = first_[c] + stride_[c] * blocks_;""",
   """        const size_t end = first_[c] + bytes_[c] * blocks_;""")]),
('every-query-clears-the-last-error',
 dict(kind='wrong (an error path: shows only when a launch or copy fails)',
      mistake="ready() calls cudaGetLastError after every cudaEventQuery, whatever it answered and whatever the last error is, to keep a not-ready answer out of the caller's checks, and so also clears a real error an earlier launch left there",
      **{'why it is wrong': "a not-ready answer is the one code to clear; any other error (a failed launch of the caller's kernel, queued before the query) is taken off the last error too, so the program's own CHECK(cudaGetLastError()) after its requests says success and a failed request goes unnoticed. On a run where nothing fails it prints the reference lines"},
      source='pytorch/pytorch#18584 and pytorch/pytorch#61554 (the caching allocator clears the last error only when a query answered not ready: "ignore and clear the error if not ready"), microsoft/onnxruntime#8358 (the same for hipEventQuery)'),
 [("""    cudaError_t e = cudaEventQuery(done_[slot]);
    if (e == cudaErrorNotReady) {
        // A "not ready" answer is no failure: take it back off the
        // runtime's last error (only if it is there: an earlier error,
        // a failed launch, stays for the caller's checks).
        if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();
        return false;
    }
    return e == cudaSuccess;""",
   """    cudaError_t e = cudaEventQuery(done_[slot]);
    // Keep the query's answer out of the caller's checks.
    (void)cudaGetLastError();
    return e == cudaSuccess;""")]),
]
