ID = "block-pool"
SRC = "exercises/day068/block_pool.cu"
NOTE = "Correct design: one flat table of block records (class regions laid out by arithmetic, no map), a round-robin cursor per class instead of a stack, one event per block, and an allocation trimmed to the last block's own bytes (not its stride): valid by the lesson ('no byte more than that needs'; the last block's kernel writes only its class's bytes), and a probe of the spec, whose malloc_bytes checks (read after phase 1) demand the padded total exactly (114688, 6144 in a hidden run)."
PRIV_OLD = """    // TODO 1: what the pool keeps: its classes, where each block starts,
    // which blocks are handed out, and, for each block given back, what
    // tells when the work queued before its deallocate is done.
};"""
PRIV_NEW = """    // One record per block; class c's blocks are records
    // [c*perClass_, (c+1)*perClass_), in address order.
    struct Block {
        char* ptr;
        bool out;          // handed out now
        cudaEvent_t done;  // recorded at its last deallocate; never recorded answers cudaSuccess
    };
    int find(const void* p) const;
    char* base_ = nullptr;
    size_t bytes_ = 0;
    size_t perClass_ = 0;
    std::vector<size_t> size_, stride_, start_; // per class: bytes, distance between blocks, offset of its first block
    std::vector<size_t> cursor_;                // per class: where the next scan starts
    std::vector<Block> blocks_;
};

// find is the record of the block that starts at p, or -1.
int BlockPool::find(const void* p) const {
    if (base_ == nullptr) return -1;
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)base_;
    if (a < b || a >= b + bytes_) return -1;
    const size_t off = a - b;
    for (size_t c = size_.size(); c-- > 0;) {
        if (off < start_[c]) continue;
        const size_t rel = off - start_[c];
        if (rel % stride_[c] != 0 || rel / stride_[c] >= perClass_) return -1;
        return (int)(c * perClass_ + rel / stride_[c]);
    }
    return -1;
}"""
INIT_OLD = """cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    (void)classBytes;
    (void)blocks;
    return cudaErrorNotYetImplemented;
}"""
INIT_NEW = """cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    if (classBytes.empty() || blocks == 0 || base_ != nullptr) return cudaErrorInvalidValue;
    size_t off = 0;
    for (size_t bytes : classBytes) {
        const size_t stride = (bytes + kAlign - 1) / kAlign * kAlign;
        size_.push_back(bytes);
        stride_.push_back(stride);
        start_.push_back(off);
        off += stride * blocks;
    }
    perClass_ = blocks;
    // The last block needs its class's bytes, not its whole stride.
    bytes_ = off - stride_.back() + size_.back();
    cudaError_t err = cudaMalloc(&base_, bytes_);
    if (err != cudaSuccess) {
        base_ = nullptr;
        return err;
    }
    for (size_t c = 0; c < size_.size(); c++) {
        for (size_t i = 0; i < blocks; i++) {
            Block b{base_ + start_[c] + i * stride_[c], false, nullptr};
            err = cudaEventCreateWithFlags(&b.done, cudaEventDisableTiming);
            if (err != cudaSuccess) {
                destroy();
                return err;
            }
            blocks_.push_back(b);
        }
    }
    cursor_.assign(size_.size(), 0);
    return cudaSuccess;
}"""
ALLOC_OLD = """void* BlockPool::allocate(size_t bytes) {
    (void)bytes;
    return nullptr;
}"""
ALLOC_NEW = """void* BlockPool::allocate(size_t bytes) {
    size_t c = 0;
    while (c < size_.size() && size_[c] < bytes) c++;
    if (c == size_.size()) return nullptr;
    // Round robin from the cursor: the block given back longest ago is
    // looked at first, the likeliest to be done.
    for (size_t n = 0; n < perClass_; n++) {
        const size_t i = (cursor_[c] + n) % perClass_;
        Block& b = blocks_[c * perClass_ + i];
        if (b.out) continue;
        const cudaError_t q = cudaEventQuery(b.done);
        if (q == cudaErrorNotReady) continue;
        if (q != cudaSuccess) return nullptr;
        b.out = true;
        cursor_[c] = (i + 1) % perClass_;
        return b.ptr;
    }
    return nullptr;
}"""
DEALLOC_OLD = """bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    (void)block;
    (void)stream;
    return false;
}"""
DEALLOC_NEW = """bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    const int i = find(block);
    if (i < 0 || !blocks_[i].out) return false;
    if (cudaEventRecord(blocks_[i].done, stream) != cudaSuccess) return false;
    blocks_[i].out = false;
    return true;
}"""
DESTROY_OLD = """void BlockPool::destroy() {
}"""
DESTROY_NEW = """void BlockPool::destroy() {
    for (Block& b : blocks_)
        if (b.done != nullptr) cudaEventDestroy(b.done);
    blocks_.clear();
    if (base_ != nullptr) cudaFree(base_);
    base_ = nullptr;
    bytes_ = 0;
    size_.clear();
    stride_.clear();
    start_.clear();
    cursor_.clear();
}"""
CORRECT = (dict(kind="correct", mistake="None intended: flat block table, round-robin scan per class, one event per block recorded on the caller's stream, allocation trimmed to the last block's bytes.", **{"why it is wrong": "n/a", "source": "own"}),
           [(PRIV_OLD, PRIV_NEW), (INIT_OLD, INIT_NEW), (ALLOC_OLD, ALLOC_NEW), (DEALLOC_OLD, DEALLOC_NEW), (DESTROY_OLD, DESTROY_NEW)])

def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}

WRONGS = [
 ("one-event-per-class",
  H("one event for many blocks",
    "Each class keeps one event, re-recorded at every deallocate of that class, and a freed block is handed out when its class's event is done. A block freed on stream 0 is then judged by the work of whichever stream freed a block of the class last, so it can go to a new request while its first kernel still runs.",
    "Day 68, 'A fixed-size block pool' (Kernels still running): the block comes back once the work queued on ITS stream before ITS free is done; re-recording an event overwrites its earlier state (cudaEventRecord reference).",
    "https://forums.developer.nvidia.com/t/when-event-changes-its-state-from-notready-to-recording-cudaeventrecord-stream/6669 (event re-record semantics asked about); the mistake is own"),
  [("""    std::vector<size_t> cursor_;                // per class: where the next scan starts
    std::vector<Block> blocks_;""", """    std::vector<size_t> cursor_;                // per class: where the next scan starts
    std::vector<Block> blocks_;
    std::vector<cudaEvent_t> classDone_;        // per class: its last deallocate"""),
   ("""    cursor_.assign(size_.size(), 0);
    return cudaSuccess;""", """    cursor_.assign(size_.size(), 0);
    classDone_.assign(size_.size(), nullptr);
    for (cudaEvent_t& e : classDone_) {
        err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;"""),
   ("""        const cudaError_t q = cudaEventQuery(b.done);""", """        const cudaError_t q = cudaEventQuery(classDone_[c]);"""),
   ("""    if (cudaEventRecord(blocks_[i].done, stream) != cudaSuccess) return false;""", """    if (cudaEventRecord(classDone_[i / perClass_], stream) != cudaSuccess) return false;"""),
   ("""    blocks_.clear();
    if (base_ != nullptr) cudaFree(base_);""", """    blocks_.clear();
    for (cudaEvent_t e : classDone_) cudaEventDestroy(e);
    classDone_.clear();
    if (base_ != nullptr) cudaFree(base_);"""),
  ]),
 ("allocate-spins",
  H("host wait disguised",
    "When no block of the class is done, allocate spins on cudaEventQuery of the block given back longest ago until it answers cudaSuccess, to 'never return nullptr while blocks are merely busy'. No synchronisation API is called, yet the host waits for the GPU inside allocate.",
    "Day 68, 'A fixed-size block pool': allocate returns nullptr when the class has no done block now, 'never a wait' (a loop on cudaEventQuery waits as cudaEventSynchronize does).",
    "https://forums.developer.nvidia.com/t/cpu-spins-while-waiting-for-gpu-to-finish-computation/241672 (host spinning on the GPU); the mistake is own"),
  [("""        if (q != cudaSuccess) return nullptr;
        b.out = true;
        cursor_[c] = (i + 1) % perClass_;
        return b.ptr;
    }
    return nullptr;
}""", """        if (q != cudaSuccess) return nullptr;
        b.out = true;
        cursor_[c] = (i + 1) % perClass_;
        return b.ptr;
    }
    // Every block is busy: rather than fail the caller, wait for the one
    // given back longest ago (no cudaEventSynchronize, just asking).
    for (size_t n = 0; n < perClass_; n++) {
        Block& b = blocks_[c * perClass_ + (cursor_[c] + n) % perClass_];
        if (b.out) continue;
        while (cudaEventQuery(b.done) == cudaErrorNotReady) {
        }
        b.out = true;
        cursor_[c] = (cursor_[c] + n + 1) % perClass_;
        return b.ptr;
    }
    return nullptr;
}"""),
  ]),
 ("stride-exact-multiple",
  H("off by one in the class layout (a branch the defaults never take)",
    "The stride of a class is computed as (bytes / kAlign + 1) * kAlign, which is the right rounding for 1000, 3000 and 10000 bytes but adds a whole extra 256 bytes per block when a class is an exact multiple of 256 (e.g. 1024). The default classes never are, so the default run looks perfect.",
    "Day 68, 'A fixed-size block pool' and the exercise text: blocks on a 256-byte boundary 'and no byte more than that needs' (a class of 1000-byte blocks lays them 1024 apart, so one of 1024 does too).",
    "own"),
  [("""        const size_t stride = (bytes + kAlign - 1) / kAlign * kAlign;""", """        const size_t stride = (bytes / kAlign + 1) * kAlign;"""),
  ]),
 ("event-per-free-leak",
  H("leak of events on a path",
    "deallocate creates a fresh event for each free and destroys the old one when the block is handed out again; destroy() frees the memory and the events of blocks sitting in the pool, but forgets the ones of blocks that were given back and never handed out again (all of them at the end of the run). Every event made is not destroyed, and the pool creates events on the hot path.",
    "Day 68, exercise text: destroy 'gives back everything the pool made' (the checks count every event destroyed); creating an event per free also makes deallocate a heavier call than a record.",
    "own"),
  [("""    if (cudaEventRecord(blocks_[i].done, stream) != cudaSuccess) return false;""", """    cudaEvent_t ev;
    if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess) return false;
    if (cudaEventRecord(ev, stream) != cudaSuccess) return false;
    blocks_[i].done = ev; // the old one was destroyed when the block went out"""),
   ("""        if (q != cudaSuccess) return nullptr;
        b.out = true;""", """        if (q != cudaSuccess) return nullptr;
        cudaEventDestroy(b.done);
        b.done = nullptr;
        b.out = true;"""),
   ("""        const cudaError_t q = cudaEventQuery(b.done);""", """        const cudaError_t q = b.done == nullptr ? cudaSuccess : cudaEventQuery(b.done);"""),
   ("""    for (Block& b : blocks_)
        if (b.done != nullptr) cudaEventDestroy(b.done);""", """    for (Block& b : blocks_)
        if (b.out && b.done != nullptr) cudaEventDestroy(b.done);"""),
  ]),
 ("record-before-check",
  H("a refused free that changes state",
    "deallocate records the block's event on the given stream first and only then checks that the block is handed out, so a refused double free still moves the block's event to the stream of the bad call. With the defaults the double frees happen on the stream the block's kernel ran on, so nothing shows; a double free on another stream lets the block come back when that other stream is idle, while its kernel still runs.",
    "Day 68, exercise text: deallocate returns false 'and changes nothing' for a block that is not handed out; 'A fixed-size block pool': the event says when the work of the stream that used the block is done.",
    "https://github.com/NVIDIA/cub/pull/156 (a pool's free-list event and block state updated out of order, letting a stale cudaSuccess hand out a busy block)"),
  [("""    const int i = find(block);
    if (i < 0 || !blocks_[i].out) return false;
    if (cudaEventRecord(blocks_[i].done, stream) != cudaSuccess) return false;""", """    const int i = find(block);
    if (i < 0) return false;
    if (cudaEventRecord(blocks_[i].done, stream) != cudaSuccess) return false;
    if (!blocks_[i].out) return false; // already given back"""),
  ]),
]
