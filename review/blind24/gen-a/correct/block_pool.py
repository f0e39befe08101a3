# The TODO parts of block-pool's correct file.
EX = "block-pool"
STUDENT = "exercises/day068/block_pool.cu"
DESIGN = ("every block's event made up front in init (one per block, timing off, classes*blocks cudaEventCreateWithFlags calls) and kept until destroy, "
          "none made or destroyed in deallocate; NO lists at all: a state byte per block (idle, out, pending) and a next-fit cursor per class, "
          "allocate scanning the class's blocks once round from its cursor and asking a pending block's event with cudaEventQuery (never a wait, "
          "never clearing the last error); blocks found by arithmetic (the last class run starting at or below the offset, then an exact multiple of its stride); "
          "the one cudaMalloc is the full sum of the strides, the last block's padding included")
EDITS = [
("""    // TODO 1: what the pool keeps: its classes, where each block starts,
    // which blocks are handed out, and, for each block given back, what
    // tells when the work queued before its deallocate is done.
};""",
"""    // Every block has a state and an event of its own, both made in init:
    // no list of free or pending blocks, only a cursor per class where the
    // next scan of that class starts (next fit).
    enum State : unsigned char { IDLE, OUT, PENDING };
    char* base_ = nullptr;
    size_t total_ = 0, blocks_ = 0;
    std::vector<size_t> size_, stride_, first_;  // per class: its bytes, its stride, its first block's offset
    std::vector<size_t> cursor_;                 // per class: the block its next scan starts at
    std::vector<State> state_;                   // per block, class after class
    std::vector<cudaEvent_t> event_;             // per block, class after class
    State& state_of(size_t c, size_t j) { return state_[c * blocks_ + j]; }
    cudaEvent_t& event_of(size_t c, size_t j) { return event_[c * blocks_ + j]; }
};"""),
("""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    (void)classBytes;
    (void)blocks;
    return cudaErrorNotYetImplemented;
}""",
"""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    if (classBytes.empty() || blocks == 0) return cudaErrorInvalidValue;
    blocks_ = blocks;
    size_t off = 0;
    for (size_t bytes : classBytes) {
        const size_t stride = (bytes + kAlign - 1) / kAlign * kAlign;
        size_.push_back(bytes);
        stride_.push_back(stride);
        first_.push_back(off);
        off += stride * blocks;
    }
    total_ = off;
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, total_);
    if (err != cudaSuccess) return err;
    base_ = static_cast<char*>(p);
    const size_t n = classBytes.size() * blocks;
    cursor_.assign(classBytes.size(), 0);
    state_.assign(n, IDLE);
    event_.assign(n, nullptr);
    for (size_t i = 0; i < n; i++) {
        err = cudaEventCreateWithFlags(&event_[i], cudaEventDisableTiming);
        if (err != cudaSuccess) {
            destroy();
            return err;
        }
    }
    return cudaSuccess;
}"""),
("""void* BlockPool::allocate(size_t bytes) {
    (void)bytes;
    return nullptr;
}""",
"""void* BlockPool::allocate(size_t bytes) {
    size_t c = 0;
    while (c < size_.size() && size_[c] < bytes) c++;
    if (base_ == nullptr || c == size_.size()) return nullptr;
    for (size_t k = 0; k < blocks_; k++) {
        const size_t j = (cursor_[c] + k) % blocks_;
        State& st = state_of(c, j);
        if (st == OUT) continue;
        // Asked, not waited for. A "not ready" answer is not an error the
        // runtime keeps, so the caller's last error stays as it was.
        if (st == PENDING && cudaEventQuery(event_of(c, j)) != cudaSuccess) continue;
        st = OUT;
        cursor_[c] = (j + 1) % blocks_;
        return base_ + first_[c] + j * stride_[c];
    }
    return nullptr;
}"""),
("""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    (void)block;
    (void)stream;
    return false;
}""",
"""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(block), base = reinterpret_cast<uintptr_t>(base_);
    if (base_ == nullptr || p < base || p >= base + total_) return false;
    const size_t off = p - base;
    size_t c = first_.size() - 1;
    while (off < first_[c]) c--;  // the class whose run holds off
    const size_t rel = off - first_[c];
    if (rel % stride_[c] != 0) return false;  // inside a block, not at its start
    const size_t j = rel / stride_[c];
    State& st = state_of(c, j);
    if (st != OUT) return false;  // idle, or given back already (done or not)
    if (cudaEventRecord(event_of(c, j), stream) != cudaSuccess) return false;
    st = PENDING;
    return true;
}"""),
("""void BlockPool::destroy() {
}""",
"""void BlockPool::destroy() {
    for (size_t i = 0; i < event_.size(); i++)
        if (event_[i] != nullptr) cudaEventDestroy(event_[i]);
    if (base_ != nullptr) cudaFree(base_);
    base_ = nullptr;
    total_ = blocks_ = 0;
    size_.clear();
    stride_.clear();
    first_.clear();
    cursor_.clear();
    state_.clear();
    event_.clear();
}"""),
]
