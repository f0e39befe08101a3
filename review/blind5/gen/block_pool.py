STUDENT = "exercises/day068/block_pool.cu"
DIR = "block-pool"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. Every block has a slot: its state (free, out, or back and
    waiting on its event) and an event of its own, made in init. allocate scans
    the class round-robin from a cursor that moves past each block it hands out,
    so the class's blocks are used in turn, not the lowest first; a block that
    is back becomes free the first time its event answers cudaSuccess.""",
    why="""it is not: a block is handed out only when the event recorded on the
    stream of its deallocate, after that deallocate's checks, says done; nothing
    waits on the host.""",
    source="""own design from the lesson (day 68, "A fixed-size block pool" and
    "Exercise: block-pool"); the runtime API reference, cudaEventQuery and
    cudaEventRecord.""")

CORRECT = [
("""    // TODO 1: what the pool keeps: its classes, where each block starts,
    // which blocks are handed out, and, for each block given back, what
    // tells when the work queued before its deallocate is done.
};""",
"""    enum State : unsigned char { Free, Out, Back };
    char* base_ = nullptr;
    size_t blocks_ = 0;
    std::vector<size_t> bytes_;   // each class's size as asked
    std::vector<size_t> stride_;  // each class's distance between blocks
    std::vector<size_t> start_;   // each class's first block, from base_
    std::vector<size_t> cursor_;  // where each class's next scan begins
    std::vector<State> state_;    // per block, class by class
    std::vector<cudaEvent_t> event_; // per block, made in init
    // slot is the block's index (class c, block i), or -1.
    long slot(const void* p) const {
        if (base_ == nullptr) return -1;
        const char* q = static_cast<const char*>(p);
        if (q < base_) return -1;
        const size_t off = (size_t)(q - base_);
        for (size_t c = 0; c < stride_.size(); c++) {
            if (off < start_[c] || off >= start_[c] + blocks_ * stride_[c]) continue;
            if ((off - start_[c]) % stride_[c] != 0) return -1;
            return (long)(c * blocks_ + (off - start_[c]) / stride_[c]);
        }
        return -1;
    }
};"""),
("""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    (void)classBytes;
    (void)blocks;
    return cudaErrorNotYetImplemented;
}""",
"""cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    blocks_ = blocks;
    bytes_ = classBytes;
    size_t total = 0;
    for (size_t b : classBytes) {
        const size_t stride = (b + kAlign - 1) / kAlign * kAlign;
        stride_.push_back(stride);
        start_.push_back(total);
        cursor_.push_back(0);
        total += stride * blocks;
    }
    cudaError_t err = cudaMalloc(&base_, total);
    if (err != cudaSuccess) {
        base_ = nullptr;
        return err;
    }
    state_.assign(classBytes.size() * blocks, Free);
    event_.assign(classBytes.size() * blocks, nullptr);
    for (cudaEvent_t& e : event_) {
        err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}"""),
("""void* BlockPool::allocate(size_t bytes) {
    (void)bytes;
    return nullptr;
}""",
"""void* BlockPool::allocate(size_t bytes) {
    size_t c = 0;
    while (c < bytes_.size() && bytes_[c] < bytes) c++;
    if (c == bytes_.size() || base_ == nullptr) return nullptr;
    for (size_t n = 0; n < blocks_; n++) {
        const size_t i = (cursor_[c] + n) % blocks_;
        const size_t b = c * blocks_ + i;
        if (state_[b] == Back) {
            const cudaError_t q = cudaEventQuery(event_[b]);
            if (q == cudaSuccess) state_[b] = Free;
            else if (q != cudaErrorNotReady) (void)cudaGetLastError();
        }
        if (state_[b] != Free) continue;
        state_[b] = Out;
        cursor_[c] = (i + 1) % blocks_;
        return base_ + start_[c] + i * stride_[c];
    }
    return nullptr;
}"""),
("""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    (void)block;
    (void)stream;
    return false;
}""",
"""bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    const long b = slot(block);
    if (b < 0 || state_[b] != Out) return false;
    if (cudaEventRecord(event_[b], stream) != cudaSuccess) return false;
    state_[b] = Back;
    return true;
}"""),
("""void BlockPool::destroy() {
}""",
"""void BlockPool::destroy() {
    for (cudaEvent_t e : event_)
        if (e != nullptr) cudaEventDestroy(e);
    event_.clear();
    state_.clear();
    if (base_ != nullptr) cudaFree(base_);
    base_ = nullptr;
}"""),
]

WRONG = [
("region-starts-unrounded", dict(
    kind="a wrong alignment: each class's region starts where the unrounded sizes end",
    mistake="""init adds up classBytes[c] * blocks, not stride * blocks, for where
    the next class's region starts (and for the allocation's size), while each
    class's blocks are still a rounded stride apart: the blocks inside a region
    are 256 bytes apart from its start, but the start itself is not on a
    256-byte boundary, and a class's region runs into the next one.""",
    why="""every block must start on a 256-byte boundary; here the second class
    starts at 8 * 1000 bytes, not a multiple of 256, and the last blocks of a
    class overlap the first of the next, beyond the allocation's end for the
    last class.""",
    source="""NVIDIA/cnmem#6 ("fixed base address misalignment": offsets aligned
    within each stream's region, but the region's base address was not, giving
    "misaligned address" errors)."""),
 [("""        start_.push_back(total);
        cursor_.push_back(0);
        total += stride * blocks;""",
   """        start_.push_back(total);
        cursor_.push_back(0);
        total += b * blocks;""")]),
("record-only-on-a-new-stream", dict(
    kind="a missing record: a block given back on the stream of its last give-back keeps its old event",
    mistake="""deallocate records the block's event only when the stream differs from
    the one it recorded on last time, reasoning as for a stream-ordered
    allocator that reuse on the same stream needs no event; otherwise it marks
    the block back with the event of its previous give-back, long complete.""",
    why="""this pool's allocate is called by the host, not in any stream's order:
    a block back on the same stream is still used by the kernel queued before
    this deallocate, and the old record says cudaSuccess at once, so the block
    is handed to another request while its kernel runs.""",
    source="""eyalroz/cuda-api-wrappers#226 (an event's query answers for its most
    recent record only, and "occurred" for one never recorded since); NVIDIA/cub#156
    (a stale cudaSuccess lets another caller claim a block the device still uses)."""),
 [("""    std::vector<cudaEvent_t> event_; // per block, made in init""",
   """    std::vector<cudaEvent_t> event_; // per block, made in init
    std::vector<cudaStream_t> last_; // the stream each block's event was recorded on"""),
  ("""    event_.assign(classBytes.size() * blocks, nullptr);""",
   """    event_.assign(classBytes.size() * blocks, nullptr);
    last_.assign(classBytes.size() * blocks, nullptr);"""),
  ("""    if (cudaEventRecord(event_[b], stream) != cudaSuccess) return false;""",
   """    if (last_[b] != stream || last_[b] == nullptr) {
        if (cudaEventRecord(event_[b], stream) != cudaSuccess) return false;
        last_[b] = stream;
    }""")]),
("exact-size-to-next-class", dict(
    kind="an off-by-one at a class boundary: a request of exactly a class's size goes to the next class",
    mistake="""allocate skips a class while its size is not greater than the request
    (bytes_[c] <= bytes), so a request of exactly 1000 bytes takes a 3000-byte
    block, and one of exactly the largest class's size gets nullptr.""",
    why="""the smallest class that holds the request is the one of exactly its
    size; the program asks for each class's own size, then finds that class
    empty too early (or the next class used up by requests that were not its
    own), and a request of the largest size is refused outright.""",
    source="""jemalloc/jemalloc#2236 ("If max_alloc falls exactly on the size class
    boundary, we need one more bin": the size-class computation was off by one
    at exact boundaries)."""),
 [("""    while (c < bytes_.size() && bytes_[c] < bytes) c++;""",
   """    while (c < bytes_.size() && bytes_[c] <= bytes) c++;""")]),
]
