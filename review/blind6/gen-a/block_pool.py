from gen import read, edit, header, write

S = read("exercises/day068/block_pool.cu")

PRIVATE_OLD = """private:
    // TODO 1: what the pool keeps: its classes, where each block starts,
    // which blocks are handed out, and, for each block given back, what
    // tells when the work queued before its deallocate is done.
};"""
PRIVATE = """private:
    // A block: where it starts, its class, whether it is handed out, and
    // the event recorded on the stream it was given back on (pending until
    // a query finds it done; a block never given back has none to wait for).
    struct Block {
        char* start;
        int cls;
        bool out;
        bool pending;
        cudaEvent_t done;
    };
    char* base_ = nullptr;
    std::vector<size_t> stride_;          // each class's size rounded up to kAlign
    std::vector<Block> blocks_;
    std::vector<std::vector<int>> back_;  // per class: blocks given back (done or pending)
    std::unordered_map<uintptr_t, int> at_;  // block start -> index in blocks_
    int take(int cls);
    void clear();
};"""

IMPL_OLD = S[S.index("// TODO 2: lay the classes out"):S.index("// kGateNs is how long")]
IMPL = """// init lays the classes out one after another, each block on its class's
// stride, and makes one event a block.
cudaError_t BlockPool::init(const std::vector<size_t>& classBytes, size_t blocks) {
    size_t total = 0;
    for (size_t b : classBytes) {
        stride_.push_back((b + kAlign - 1) / kAlign * kAlign);
        total += stride_.back() * blocks;
    }
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, total);
    if (err != cudaSuccess) {
        clear();
        return err;
    }
    base_ = static_cast<char*>(p);
    back_.assign(classBytes.size(), {});
    char* at = base_;
    for (size_t c = 0; c < classBytes.size(); c++)
        for (size_t i = 0; i < blocks; i++, at += stride_[c]) {
            Block b{at, (int)c, false, false, nullptr};
            err = cudaEventCreateWithFlags(&b.done, cudaEventDisableTiming);
            if (err != cudaSuccess) {
                destroy();
                return err;
            }
            at_[(uintptr_t)at] = (int)blocks_.size();
            back_[c].push_back((int)blocks_.size());
            blocks_.push_back(b);
        }
    return cudaSuccess;
}

// take hands out a block of class cls whose work is done: any of those
// given back, not only the oldest, asked without waiting.
int BlockPool::take(int cls) {
    std::vector<int>& list = back_[cls];
    for (size_t i = 0; i < list.size(); i++) {
        Block& b = blocks_[list[i]];
        if (b.pending) {
            cudaError_t q = cudaEventQuery(b.done);
            if (q == cudaErrorNotReady) {
                // "not ready" is an answer, not a failure: leave no trace of
                // it for the program's cudaGetLastError (as PyTorch's
                // allocator does), and keep any other error there
                if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
                continue;
            }
            if (q != cudaSuccess) continue;  // a failed event never says done
            b.pending = false;
        }
        const int got = list[i];
        list[i] = list.back();
        list.pop_back();
        b.out = true;
        return got;
    }
    return -1;
}

void* BlockPool::allocate(size_t bytes) {
    if (bytes == 0 || base_ == nullptr) return nullptr;
    for (size_t c = 0; c < back_.size(); c++) {
        if (bytes > stride_[c]) continue;
        // the class's own size, not its stride, says whether it holds bytes
        const size_t own = c < sizes_.size() ? sizes_[c] : 0;
        if (bytes > own) continue;
        const int got = take((int)c);
        return got < 0 ? nullptr : blocks_[got].start;
    }
    return nullptr;
}

bool BlockPool::deallocate(void* block, cudaStream_t stream) {
    auto it = at_.find((uintptr_t)block);
    if (it == at_.end()) return false;
    Block& b = blocks_[it->second];
    if (!b.out) return false;
    if (cudaEventRecord(b.done, stream) != cudaSuccess) return false;
    b.out = false;
    b.pending = true;
    back_[b.cls].push_back(it->second);
    return true;
}

void BlockPool::destroy() {
    for (Block& b : blocks_)
        if (b.done != nullptr) cudaEventDestroy(b.done);
    if (base_ != nullptr) cudaFree(base_);
    clear();
}

void BlockPool::clear() {
    base_ = nullptr;
    stride_.clear();
    sizes_.clear();
    blocks_.clear();
    back_.clear();
    at_.clear();
}

"""

def correct():
    t = edit(S, "#include <vector>\n", "#include <unordered_map>\n#include <vector>\n")
    t = edit(t, PRIVATE_OLD, PRIVATE)
    t = edit(t, IMPL_OLD, IMPL)
    return t

C = correct()
C = edit(C, "    std::vector<size_t> stride_;          // each class's size rounded up to kAlign\n",
         "    std::vector<size_t> sizes_;           // each class's size as given\n    std::vector<size_t> stride_;          // each class's size rounded up to kAlign\n")
C = edit(C, "        stride_.push_back((b + kAlign - 1) / kAlign * kAlign);\n",
         "        sizes_.push_back(b);\n        stride_.push_back((b + kAlign - 1) / kAlign * kAlign);\n")
write("block-pool", "correct.cu", header(
    "correct",
    "none: an event per block, recorded at deallocate; a class's given-back blocks kept in a list that allocate scans whole, taking the first whose event a query says is done (any of them, not only the oldest); blocks found by start address in a hash map; the arena exactly the sum of the rounded strides.",
    "it is not wrong: no host wait, a block comes back only after its own give-back's work, refusals change nothing.",
    "none (written from the lesson and the student file).") + C)

# wrong 1: the free/handed-out state kept as a 32-bit mask per class.
W1 = C
W1 = edit(W1, "    std::vector<std::vector<int>> back_;  // per class: blocks given back (done or pending)\n",
          "    std::vector<std::vector<int>> back_;  // per class: blocks given back (done or pending)\n    std::vector<unsigned> outMask_;       // per class: bit i set while block i of the class is handed out\n    size_t perClass_ = 0;\n")
W1 = edit(W1, "    base_ = static_cast<char*>(p);\n    back_.assign(classBytes.size(), {});\n",
          "    base_ = static_cast<char*>(p);\n    back_.assign(classBytes.size(), {});\n    outMask_.assign(classBytes.size(), 0u);\n    perClass_ = blocks;\n")
W1 = edit(W1, """        const int got = list[i];
        list[i] = list.back();
        list.pop_back();
        b.out = true;
        return got;""", """        const int got = list[i];
        list[i] = list.back();
        list.pop_back();
        outMask_[cls] |= 1u << (got % perClass_);
        return got;""")
W1 = edit(W1, """    Block& b = blocks_[it->second];
    if (!b.out) return false;
    if (cudaEventRecord(b.done, stream) != cudaSuccess) return false;
    b.out = false;""", """    Block& b = blocks_[it->second];
    const unsigned bit = 1u << (it->second % perClass_);
    if ((outMask_[b.cls] & bit) == 0) return false;
    if (cudaEventRecord(b.done, stream) != cudaSuccess) return false;
    outMask_[b.cls] &= ~bit;""")
W1 = edit(W1, "    at_.clear();\n}", "    at_.clear();\n    outMask_.clear();\n}")
write("block-pool", "wrong-handed-out-bits-in-32-bit-mask.cu", header(
    "wrong",
    "which blocks of a class are handed out is kept as bits of one unsigned (32 bits) per class, set with 1u << index; BLOCKS goes up to 64.",
    "with more than 32 blocks a class, 1u << i for i >= 32 is undefined (on x86 it wraps to bit i % 32), so block 33 shares block 1's bit: a block handed out can be refused as \"not handed out\", and a block given back can clear another's bit so that a double free is accepted; at the default 8 blocks every bit is distinct and the run is right.",
    "rickardp/splitstream#5 (a memory pool's block mask built with 1 << blocksNeeded in a 32-bit int: wrong for more than 32 blocks, zero at 64)") + W1)

# wrong 2: the arena sized by the raw bytes, rounded once.
W2 = C
W2 = edit(W2, """    size_t total = 0;
    for (size_t b : classBytes) {
        sizes_.push_back(b);
        stride_.push_back((b + kAlign - 1) / kAlign * kAlign);
        total += stride_.back() * blocks;
    }""", """    size_t total = 0;
    for (size_t b : classBytes) {
        sizes_.push_back(b);
        stride_.push_back((b + kAlign - 1) / kAlign * kAlign);
        total += b * blocks;
    }
    total = (total + kAlign - 1) / kAlign * kAlign;  // the allocation itself aligned""")
write("block-pool", "wrong-arena-sized-by-raw-bytes.cu", header(
    "wrong",
    "the arena's size is the sum of the classes' own sizes times the blocks, rounded up to 256 once, while the blocks are laid out at their rounded strides.",
    "the padding of every block but none is left out of the size: for 8 blocks of 1000, 3000 and 10000 bytes it asks 112128 bytes and lays blocks out to 114688, so the last blocks of the largest class lie past the end of the cudaMalloc; cudaMalloc rounds the allocation up to its own page, so nothing faults and every kernel sees its words, but the pool hands out memory it does not own (a memcheck or the allocation's size shows it).",
    "odin-lang/Odin#1817 (an arena's total-size computation that left out the alignment padding), ccgargantua/arena-allocator#21 (an aligned index pushed past the arena's size: over-allocation)") + W2)

# wrong 3: completion marked by a host function on the stream.
W3 = C
W3 = edit(W3, "    int take(int cls);\n", "    int take(int cls);\n    static void CUDART_CB mark_done(void* flag);\n")
W3 = edit(W3, """        cudaEvent_t done;
    };""", """        cudaEvent_t done;
        bool* ready;  // set by a host function queued after the block's work
    };""")
W3 = edit(W3, """            Block b{at, (int)c, false, false, nullptr};""", """            Block b{at, (int)c, false, false, nullptr, new bool(true)};""")
W3 = edit(W3, """        if (b.pending) {
            cudaError_t q = cudaEventQuery(b.done);
            if (q == cudaErrorNotReady) {
                // "not ready" is an answer, not a failure: leave no trace of
                // it for the program's cudaGetLastError (as PyTorch's
                // allocator does), and keep any other error there
                if (cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
                continue;
            }
            if (q != cudaSuccess) continue;  // a failed event never says done
            b.pending = false;
        }""", """        if (b.pending) {
            if (!*b.ready) continue;  // the stream has not reached the block's host function yet
            b.pending = false;
        }""")
W3 = edit(W3, """    if (cudaEventRecord(b.done, stream) != cudaSuccess) return false;
    b.out = false;""", """    *b.ready = false;
    if (cudaLaunchHostFunc(stream, mark_done, b.ready) != cudaSuccess) {
        *b.ready = true;
        return false;
    }
    b.out = false;""")
W3 = edit(W3, """void BlockPool::destroy() {
    for (Block& b : blocks_)
        if (b.done != nullptr) cudaEventDestroy(b.done);""", """// mark_done runs on the driver's thread once the stream's earlier work is
// done: no CUDA call in it, only the flag.
void CUDART_CB BlockPool::mark_done(void* flag) {
    *static_cast<bool*>(flag) = true;
}

void BlockPool::destroy() {
    cudaDeviceSynchronize();  // host functions still queued write the flags
    for (Block& b : blocks_) {
        if (b.done != nullptr) cudaEventDestroy(b.done);
        delete b.ready;
    }""")
write("block-pool", "wrong-done-flag-set-by-host-function.cu", header(
    "wrong",
    "deallocate queues a host function (cudaLaunchHostFunc) on the stream that sets the block's plain bool flag; allocate hands out a given-back block once its flag is set, with no event.",
    "the flag is written by the driver's callback thread and read by the program's thread with no atomic or fence: a data race, and the compiler may keep the read out of the polling loop; worse, a host function blocks its stream (and, the CUDA reference says, host functions of independent streams \"may be serialized\"), so every give-back puts the host in the GPU's path: the four streams' kernels lose their overlap and the driver's thread runs once per request. It usually prints the right numbers.",
    "ml-explore/mlx#2099 (buffers freed from cudaLaunchHostFunc callbacks: deadlocks; the fix proposed is an event per launch, queried), LuisaGroup/LuisaCompute#248 (a staging region recycled on a flag polled from the host before its copy was done)") + W3)
