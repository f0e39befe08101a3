"""block-pool: the correct design and four wrong files (blind8, first half)."""
from mk import student, edit, header, write, wrong

EX, EXT = "block-pool", "cu"
t = student("exercises/day068/block_pool.cu")

t = edit(t, """private:
    // TODO 1: what the pool keeps: its classes, where each block starts,
    // which blocks are handed out, and, for each block given back, what
    // tells when the work queued before its deallocate is done.
};
""", """private:
    // A slot is one block: where it starts, its class, its state and its
    // own event. The slots lie in address order (class after class), so a
    // pointer is found by a binary search over the starts.
    enum State { kFree, kOut, kPending };
    struct Slot {
        char* start;
        int cls;
        State state;
        cudaEvent_t done;  // recorded at the block's deallocate
    };
    int find(const void* p) const;
    char* base_ = nullptr;
    std::vector<size_t> classes_;
    std::vector<Slot> slots_;
    std::vector<int> first_;  // the index of each class's first slot
    std::vector<int> next_;   // where the next search of each class starts
    int blocks_ = 0;
};

// forget_not_ready drops a "not ready" answer from the runtime's last
// error, and only that: a query that says "not yet" is not a failure, and
// any other error stays for the program's own checks.
static void forget_not_ready() {
    if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
}

// find is the slot whose block starts exactly at p, or -1.
int BlockPool::find(const void* p) const {
    const char* c = static_cast<const char*>(p);
    size_t lo = 0, hi = slots_.size();
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (slots_[mid].start < c) lo = mid + 1;
        else hi = mid;
    }
    return lo < slots_.size() && slots_[lo].start == c ? (int)lo : -1;
}
""")

t = edit(t, """cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    (void)classBytes;
    (void)blocks;
    return cudaErrorNotYetImplemented;
}""", """cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    if (classBytes.empty() || blocks == 0) return cudaErrorInvalidValue;
    classes_ = classBytes;
    blocks_ = (int)blocks;
    // The arena: every block its class's size rounded up to kAlign, class
    // after class, except the very last block, which stops at its own size.
    size_t total = 0;
    for (size_t b : classes_) total += (b + kAlign - 1) / kAlign * kAlign * blocks;
    const size_t last = classes_.back();
    total -= (last + kAlign - 1) / kAlign * kAlign - last;
    cudaError_t err = cudaMalloc(&base_, total);
    if (err != cudaSuccess) {
        base_ = nullptr;
        return err;
    }
    char* at = base_;
    for (int c = 0; c < (int)classes_.size(); c++) {
        const size_t stride = (classes_[c] + kAlign - 1) / kAlign * kAlign;
        first_.push_back((int)slots_.size());
        next_.push_back(0);
        for (size_t i = 0; i < blocks; i++, at += stride) slots_.push_back({at, c, kFree, nullptr});
    }
    for (Slot& s : slots_) {
        err = cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming);
        if (err != cudaSuccess) {
            s.done = nullptr;
            destroy();
            return err;
        }
    }
    return cudaSuccess;
}""")

t = edit(t, """void* BlockPool::allocate(size_t bytes) {
    (void)bytes;
    return nullptr;
}""", """// The class's slots are searched round-robin from where the last search
// of the class stopped: a block whose event answers cudaSuccess is done;
// one that answers "not ready" is passed over. Nothing here waits.
void* BlockPool::allocate(size_t bytes) {
    const int c = (int)(std::lower_bound(classes_.begin(), classes_.end(), bytes) - classes_.begin());
    if (c == (int)classes_.size()) return nullptr;
    for (int k = 0; k < blocks_; k++) {
        const int j = (next_[c] + k) % blocks_;
        Slot& s = slots_[first_[c] + j];
        if (s.state == kOut) continue;
        if (s.state == kPending) {
            const cudaError_t q = cudaEventQuery(s.done);
            if (q != cudaSuccess) {
                forget_not_ready();
                continue;
            }
        }
        s.state = kOut;
        next_[c] = (j + 1) % blocks_;
        return s.start;
    }
    return nullptr;
}""")

t = edit(t, """bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    (void)block;
    (void)stream;
    return false;
}""", """// A block given back on a stream with nothing left to run is free at
// once (cudaStreamQuery has seen that stream's work done); otherwise its
// event is recorded on the stream, to be asked by allocate().
bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    const int i = find(block);
    if (i < 0 || slots_[i].state != kOut) return false;
    Slot& s = slots_[i];
    const cudaError_t idle = cudaStreamQuery(stream);
    if (idle == cudaSuccess) {
        s.state = kFree;
        return true;
    }
    forget_not_ready();
    if (cudaEventRecord(s.done, stream) != cudaSuccess) return false;
    s.state = kPending;
    return true;
}""")

t = edit(t, """void BlockPool::destroy() {
}""", """void BlockPool::destroy() {
    for (Slot& s : slots_)
        if (s.done != nullptr) cudaEventDestroy(s.done);
    if (base_ != nullptr) cudaFree(base_);
    base_ = nullptr;
    slots_.clear();
    first_.clear();
    next_.clear();
    classes_.clear();
}""")

write(EX, "correct.cu", header(
    "correct",
    "none: a slot per block (start, class, state, its own event) in address order, found by a binary search over the starts; each class searched round-robin from where its last search stopped; a block given back on an idle stream (cudaStreamQuery says cudaSuccess) is free at once, otherwise its event is recorded there; the arena's very last block stops at its own size; a not-ready answer cleared from the last error only when it is the last error.",
    "none: it is correct.",
    "none (written from the lesson and the student file)."), t)
correct = t

wrong(EX, EXT, correct, "done-in-host-order-across-streams",
      "wrong (one event for many: a block handed out on a later block's event from another stream; the record sees it in part 4, the words only when that kernel still runs)",
      "when allocate finds a pending block's event done, it also marks free every pending block of the class that was given back before it, on any stream, taking the events to complete in the order they were recorded.",
      "events complete in their own stream's order only; a block given back earlier on another stream may still be in use by a kernel that outlasts the later block's work, and the pool hands it out with nothing ordering the two.",
      "torch/cutorch#222 (a wait on the last-recorded of several streams' events: 'tests passed because the work was enqueued to the streams in order, and last stream was done last', which nothing guarantees)",
      [("""    enum State { kFree, kOut, kPending };
    struct Slot {
        char* start;
        int cls;
        State state;
        cudaEvent_t done;  // recorded at the block's deallocate
    };""", """    enum State { kFree, kOut, kPending };
    struct Slot {
        char* start;
        int cls;
        State state;
        cudaEvent_t done;  // recorded at the block's deallocate
        long long when;    // the order of its deallocate
    };
    long long gives_ = 0;"""),
       ("""            if (q != cudaSuccess) {
                forget_not_ready();
                continue;
            }
        }""", """            if (q != cudaSuccess) {
                forget_not_ready();
                continue;
            }
            // Everything recorded before this event is done too.
            for (int m = 0; m < blocks_; m++) {
                Slot& o = slots_[first_[c] + m];
                if (o.state == kPending && o.when < s.when) o.state = kFree;
            }
        }"""),
       ("""    s.state = kPending;
    return true;""", """    s.state = kPending;
    s.when = gives_++;
    return true;""")])

wrong(EX, EXT, correct, "falls-back-to-a-larger-class-when-all-out",
      "wrong (a branch the harness never takes: a class whose every block is handed out while a larger class has one free)",
      "when every block of the request's class is handed out (none pending, none free), allocate serves the request from the next larger class instead of saying nullptr, as a size-class allocator that 'never fails while memory is free' would.",
      "the exercise says a request gets a block of the smallest class that holds it, 'never a block of another class'; a program sizes its kernels to the class, frees by class and the pool's layout promises no more; part 1 takes the classes one after another and never asks a full class while a larger one is free, so no default run reaches the branch.",
      "toitlang/toit#709 (an allocator that falls back to another size when the one it wants is not there), dlang/phobos#3693 (a free list whose blocks served requests of another size than they were made for: memory stomping)",
      [("""    if (c == (int)classes_.size()) return nullptr;
    for (int k = 0; k < blocks_; k++) {""", """    if (c == (int)classes_.size()) return nullptr;
    bool allOut = true;
    for (int k = 0; k < blocks_; k++) allOut = allOut && slots_[first_[c] + k].state == kOut;
    if (allOut) return c + 1 < (int)classes_.size() ? allocate(classes_[c + 1]) : nullptr;
    for (int k = 0; k < blocks_; k++) {""")])

wrong(EX, EXT, correct, "last-padding-a-whole-unit-at-multiples",
      "wrong (shows only when the largest class is an exact multiple of 256: the arena is 256 bytes short, a write past the allocation)",
      "init leaves out the last block's padding computed as kAlign - last % kAlign, which is 256, not 0, when the largest class is already a multiple of 256, so the arena ends 256 bytes before the last block does.",
      "for classes such as 1024 2048 4096 the last block's last 256 bytes lie past the end of the cudaMalloc: the program's memset and kernel on that block write outside the pool's allocation; the default classes (10000 bytes: padding 240) are right, so only an argument of exact multiples shows it.",
      "TheHPXProject/hpx#4024 (padding computed as line - size % line: a full extra line when the size is a multiple; fixed to 0), FreeRTOS/FreeRTOS-Kernel#650 (padding added even when the block was already aligned)",
      [("""    total -= (last + kAlign - 1) / kAlign * kAlign - last;""",
        """    total -= kAlign - last % kAlign;""")])

wrong(EX, EXT, correct, "idle-test-asks-the-default-stream",
      "wrong (race: a block given back right after its kernel's launch is free at once)",
      "deallocate asks cudaStreamQuery(0), the legacy default stream, whether there is work left, instead of the stream the block was given back on, and frees the block at once when it says idle.",
      "the requests run on non-blocking streams, which the legacy default stream does not wait for: it is idle while their kernels still run, so a block goes back on the list with its kernel queued, and the next request (another stream) writes it while the first still holds it.",
      "lupinemachines/lupine#569 (legacy default stream and non-blocking streams: which work an idle default stream says nothing about), the lesson's own pitfall on cudaEventRecord(event) with the legacy stream",
      [("""    const cudaError_t idle = cudaStreamQuery(stream);""",
        """    const cudaError_t idle = cudaStreamQuery(0);  // nothing left on the GPU""")])
