STUDENT = "exercises/day086/heap_vs_pool.cu"
DIR = "heap-vs-pool"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: the arena keeps its base, a slice stride (sliceBytes rounded up to 256, all of it usable) and its size; take moves the block's shared offset with an atomicCAS loop that only moves it when the list fits, so a list that does not fit leaves room for smaller ones after it (it goes to the heap); make_arena sizes the heap first, for twice what can spill (each block's lists past its slice, plus the largest list) and 4 MiB for the heap's own bookkeeping, then allocates the buffer in s's order; give_back frees only what in_arena says is not the arena's.",
    "why it is wrong": "it is not: the lesson leaves the arena's fields and how the offset moves to the student; a compare-and-swap offset (Day 87's \"atomicCAS loop that only moves the offset when the request fits\") is a valid way to cut a slice and wastes less of it than an atomicAdd that overshoots.",
    "source": "own design; the heap rules from the CUDA Programming Guide, \"Dynamic Global Memory Allocation and Operations\" (the heap size fixed before the first kernel that calls malloc; malloc returns NULL when it has no room)",
}
CORRECT = [
("""struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
};""", """struct BlockArena {
    char* base = nullptr;   // the buffer: slice b is [base + b * stride, base + (b + 1) * stride)
    size_t stride = 0;      // a slice's bytes: at least sliceBytes, a multiple of 256
    size_t bytes = 0;       // the whole buffer
};"""),
("""    // TODO 2: the heap's size, then the buffer.
    (void)a;
    (void)blockBytes;
    (void)sliceBytes;
    (void)largest;
    (void)s;
    return cudaErrorNotYetImplemented;""", """    // What can reach the heap at once: in each block, what its lists take
    // past its slice, and at most one list more (the offset stops short of
    // the end by less than the largest list).
    size_t spill = 0;
    for (size_t b : blockBytes) spill += b + largest > sliceBytes ? b + largest - sliceBytes : 0;
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (4u << 20));
    if (e != cudaSuccess) return e;
    a->stride = std::max<size_t>(256, (sliceBytes + 255) / 256 * 256);
    a->bytes = a->stride * blockBytes.size();
    return cudaMallocAsync(&a->base, a->bytes, s);"""),
("""    // TODO 3
    (void)a;
    (void)s;
    return cudaErrorNotYetImplemented;""", """    cudaError_t e = cudaFreeAsync(a.base, s);
    a.base = nullptr;
    return e;"""),
("""    // TODO 4
    (void)a;
    (void)p;
    return false;""", """    const char* c = static_cast<const char*>(p);
    return c >= a.base && c < a.base + a.bytes;"""),
("""    // TODO 5
    (void)a;
    (void)used;
    (void)bytes;
    return nullptr;""", """    const unsigned long long want = (bytes + kListAlign - 1) / kListAlign * kListAlign;
    // Move the offset only when the list fits: a list that does not leaves
    // the rest of the slice to smaller lists.
    unsigned long long seen = *(volatile unsigned long long*)used;
    while (seen + want <= a.stride) {
        const unsigned long long got = atomicCAS(used, seen, seen + want);
        if (got == seen) return reinterpret_cast<int*>(a.base + blockIdx.x * a.stride + seen);
        seen = got;
    }
    return static_cast<int*>(malloc(bytes));   // nullptr when the heap is full too"""),
("""    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    (void)a;
    (void)list;""", """    if (list != nullptr && !in_arena(a, list)) free(list);"""),
("""    // TODO 7
    (void)a;
    (void)lists;
    (void)n;""", """    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread sees the offset at 0 before anyone takes
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* p = take(a, &used, need(i) * sizeof(int));
    lists[i] = p;
    if (p == nullptr) return;
    for (int k = 0; k < need(i); k++) p[k] = i + k;"""),
("""    // TODO 8
    (void)a;
    (void)lists;
    (void)n;""", """    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    give_back(a, lists[i]);
    lists[i] = nullptr;"""),
]

WRONG = [
    ("offsets-kept-across-launches", {
        "kind": "state kept across launches (per-block offsets in global memory, cleared once)",
        "mistake": "the blocks' offsets live in a global array beside the slices, cleared once by make_arena with cudaMemsetAsync, and take moves them there (\"shared memory is lost between kernels; keep them in global memory\").",
        "why it is wrong": "the slices are to start empty at each launch (TODO 6: \"the next launch starts the slices again\"; take's comment: \"in shared memory, 0 at the block's start\"). From the second round every slice is full, so every list goes to the heap, which was sized for the lists that spill, not for all: lists get NULL and rounds sum wrong.",
        "source": "own (the device-side twin of Day 87's reset: a bump offset that nobody empties between rounds)",
    }, [
        ("""    size_t bytes = 0;       // the whole buffer
};""", """    size_t bytes = 0;       // the whole buffer
    unsigned long long* offsets = nullptr;   // each block's offset into its slice
};"""),
        ("""    a->bytes = a->stride * blockBytes.size();
    return cudaMallocAsync(&a->base, a->bytes, s);""", """    a->bytes = a->stride * blockBytes.size();
    e = cudaMallocAsync(&a->base, a->bytes, s);
    if (e != cudaSuccess) return e;
    e = cudaMallocAsync(&a->offsets, blockBytes.size() * sizeof(unsigned long long), s);
    if (e != cudaSuccess) return e;
    return cudaMemsetAsync(a->offsets, 0, blockBytes.size() * sizeof(unsigned long long), s);"""),
        ("""    cudaError_t e = cudaFreeAsync(a.base, s);
    a.base = nullptr;""", """    cudaError_t e = cudaFreeAsync(a.base, s);
    if (e == cudaSuccess) e = cudaFreeAsync(a.offsets, s);
    a.base = nullptr;"""),
        ("""    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread sees the offset at 0 before anyone takes
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* p = take(a, &used, need(i) * sizeof(int));""", """    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* p = take(a, &a.offsets[blockIdx.x], need(i) * sizeof(int));"""),
    ]),
    ("slice-stride-unrounded", {
        "kind": "wrong size (slices laid out at sliceBytes, not on 256-byte boundaries)",
        "mistake": "the stride between slices is sliceBytes itself, not rounded up to 256.",
        "why it is wrong": "sliceBytes is 80% of a multiple of 16, which is rarely a multiple of 16: every slice after the first starts off a 16-byte boundary, and so does every list in it (make_arena: \"each slice starting on a 256-byte boundary\"; the harness counts lists \"off a 16-byte boundary\"; int4 loads of such a list would fault).",
        "source": "own",
    }, [
        ("    a->stride = std::max<size_t>(256, (sliceBytes + 255) / 256 * 256);",
         "    a->stride = std::max<size_t>(256, sliceBytes);"),
    ]),
    ("list-size-rounded-down", {
        "kind": "off by one (a size rounded down to the alignment instead of up)",
        "mistake": "take rounds the list's bytes with bytes / kListAlign * kListAlign (\"align it to 16\"), dropping the remainder.",
        "why it is wrong": "a list of 5 ints (20 bytes) gets 16: its last int is the next list's first, so two threads write the same word and lists hold what they should not (a list of 1 to 3 ints gets 0 bytes, the same address as the next).",
        "source": "own (the truncating division every alignment helper must avoid; the Programming Guide's rounding is (x + a - 1) / a * a)",
    }, [
        ("    const unsigned long long want = (bytes + kListAlign - 1) / kListAlign * kListAlign;",
         "    const unsigned long long want = bytes / kListAlign * kListAlign;"),
    ]),
    ("in-arena-bound-in-ints", {
        "kind": "wrong size (a bound computed in ints, four times too far); may be latent, depending on where the driver puts the heap",
        "mistake": "in_arena computes the arena's end through an int pointer, (const int*)a.base + a.bytes, so the bound lies 4 * bytes past the base.",
        "why it is wrong": "a heap list that lands within three buffer sizes after the arena is taken for the arena's and never freed: the heap fills up round after round and later lists get NULL. The 1 TiB probes of inspect do not see it.",
        "source": "own (C pointer arithmetic scales by the pointee: the CERT C rule ARR39-C, \"Do not add or subtract a scaled integer to a pointer\")",
    }, [
        ("""    const char* c = static_cast<const char*>(p);
    return c >= a.base && c < a.base + a.bytes;""", """    const int* c = static_cast<const int*>(p);
    return c >= reinterpret_cast<const int*>(a.base) && c < reinterpret_cast<const int*>(a.base) + a.bytes;"""),
    ]),
    ("heap-for-one-list-a-block", {
        "kind": "wrong size (the device heap sized far too small, below its own default)",
        "mistake": "make_arena sizes the heap for one largest list per block (\"only the list that crosses the slice's end spills\"), plus nothing for the heap's bookkeeping.",
        "why it is wrong": "a block's lists take up to 25% more than its slice, not one list more: at 80% the lists that spill need about 2.5 MiB, and the limit set (a hundred KiB) is smaller than the 8 MiB default it replaces; malloc then returns NULL (the lesson: the heap \"must be sized for that exception before the first launch\").",
        "source": "Stack Overflow, \"Understanding GPU heap memory and resident warps\" (questions/13150618: \"Setting a heap size of 128MB does not mean that all 128MB will be available\"); the Programming Guide on cudaLimitMallocHeapSize",
    }, [
        ("""    // What can reach the heap at once: in each block, what its lists take
    // past its slice, and at most one list more (the offset stops short of
    // the end by less than the largest list).
    size_t spill = 0;
    for (size_t b : blockBytes) spill += b + largest > sliceBytes ? b + largest - sliceBytes : 0;
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (4u << 20));""",
         """    // What can reach the heap: in each block, the one list that crosses
    // the end of its slice.
    const size_t spill = blockBytes.size() * largest;
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, spill);"""),
    ]),
]
