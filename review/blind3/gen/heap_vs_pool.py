STUDENT = "exercises/day086/heap_vs_pool.cu"
DIR = "heap-vs-pool"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: the arena keeps its base, slice size (rounded to 256), slice count and total bytes; make_arena sets the heap to twice what can spill plus 4 MiB, then cudaMallocAsync on s; take moves a shared offset with atomicAdd by the list's size rounded to 16 and falls back to malloc; give_back frees only lists outside the arena; build_lists resets the offset in thread 0 before a barrier that every thread reaches.",
    "why it is wrong": "it is not: the design the lesson asks for (day086, \"The exercise\").",
    "source": "own (CUDA Programming Guide, Dynamic Global Memory Allocation and Operations)",
}
CORRECT = [
("""struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
};""", """struct BlockArena {
    char* base = nullptr;   // the buffer
    size_t slice = 0;       // bytes of each block's slice, a multiple of 256
    size_t bytes = 0;       // the whole buffer: slice * number of blocks
};"""),
("""    // TODO 2: the heap's size, then the buffer.
    (void)a;
    (void)blockBytes;
    (void)sliceBytes;
    (void)largest;
    (void)s;
    return cudaErrorNotYetImplemented;""", """    a->slice = (sliceBytes + 255) / 256 * 256;
    // A block's lists spill once its offset passes the slice: at most what
    // the block takes beyond the slice, plus the list that crossed it.
    size_t spill = 0;
    for (size_t b : blockBytes) spill += b + largest > sliceBytes ? b + largest - sliceBytes : 0;
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (4u << 20));   // room for the heap's own bookkeeping
    if (e != cudaSuccess) return e;
    a->bytes = a->slice * blockBytes.size();
    return cudaMallocAsync((void**)&a->base, a->bytes, s);"""),
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
    return nullptr;""", """    const size_t n = (bytes + kListAlign - 1) / kListAlign * kListAlign;
    const unsigned long long off = atomicAdd(used, (unsigned long long)n);
    if (off + n <= a.slice) return reinterpret_cast<int*>(a.base + blockIdx.x * a.slice + off);
    return static_cast<int*>(malloc(bytes));   // nullptr when the heap is full"""),
("""    // slices again); the heap's do.
    (void)a;
    (void)list;""", """    // slices again); the heap's do.
    if (list != nullptr && !in_arena(a, list)) free(list);"""),
("""    // TODO 7
    (void)a;
    (void)lists;
    (void)n;""", """    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread of the block, before any returns
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int m = need(i);
    int* p = take(a, &used, m * sizeof(int));
    lists[i] = p;
    if (p == nullptr) return;
    for (int k = 0; k < m; k++) p[k] = i + k;"""),
("""    // TODO 8
    (void)a;
    (void)lists;
    (void)n;""", """    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    give_back(a, lists[i]);
    lists[i] = nullptr;"""),
]

WRONG = [
    ("return-before-barrier", {
        "kind": "a branch the defaults take but that happens to work (a barrier not reached by every thread)",
        "mistake": "build_lists computes i and returns for i >= n before the __syncthreads that follows thread 0's reset of the block's offset.",
        "why it is wrong": "in the last block (100000 lists is not a multiple of 256) some threads leave before the barrier; the Programming Guide allows __syncthreads in conditional code \"only if the conditional evaluates identically across the entire thread block, otherwise the code execution is likely to hang or produce unintended side effects\". Current GPUs count exited threads as arrived, so the lists come out right.",
        "source": "https://stackoverflow.com/questions/6666382/can-i-use-syncthreads-after-having-dropped-threads (early return before __syncthreads: works in practice, not guaranteed); CUDA C++ Programming Guide, Synchronization Functions",
    }, [
        ("""    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread of the block, before any returns
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;""", """    __shared__ unsigned long long used;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();"""),
    ]),
    ("free-arena-legacy-stream", {
        "kind": "race that happens not to corrupt (free not ordered after the kernels)",
        "mistake": "free_arena gives the buffer back with cudaFreeAsync on the legacy default stream (stream 0) instead of s.",
        "why it is wrong": "s is a non-blocking stream, which the legacy stream does not wait for: the free is not ordered after release_lists and inspect still queued on s, so the pool may hand the buffer out while they run (free_arena's contract: \"gives the buffer back in s's order\"). Nothing allocates after it in this program, so the output is right.",
        "source": "own",
    }, [
        ("    cudaError_t e = cudaFreeAsync(a.base, s);", "    (void)s;\n    cudaError_t e = cudaFreeAsync(a.base, 0);"),
    ]),
    ("heap-exact-spill", {
        "kind": "an API misread (the heap's size is not its payload)",
        "mistake": "make_arena sets the heap's limit to exactly the bytes that can spill, with no room for the heap's own bookkeeping and fragmentation.",
        "why it is wrong": "the limit is the heap's whole size, and how the heap finds a free piece is not documented (lesson, \"malloc Inside a Kernel\"); at 80% it sets 2.5 MiB where the default was 8, so the heap may refuse lists it should hold (NULL, no error), worse in the 1% run where nearly every list spills. The printed line still says \"heap limit fits\".",
        "source": "own",
    }, [
        ("    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (4u << 20));   // room for the heap's own bookkeeping",
         "    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, spill);   // just what can spill"),
    ]),
    ("sync-after-make", {
        "kind": "a host wait the design does not need",
        "mistake": "make_arena waits on the host for s after cudaMallocAsync, \"so that the buffer exists before the kernels use it\".",
        "why it is wrong": "the kernels are queued on s after the allocation, so stream order already makes the buffer ready for them (days 69 and 70: a stream-ordered allocation is usable in its stream's order, no host wait); the wait stalls the host for everything queued on s so far. The output is the same.",
        "source": "own (the misreading that cudaMallocAsync memory must be synchronized before first use)",
    }, [
        ("    return cudaMallocAsync((void**)&a->base, a->bytes, s);",
         "    e = cudaMallocAsync((void**)&a->base, a->bytes, s);\n    if (e != cudaSuccess) return e;\n    return cudaStreamSynchronize(s);   // the buffer exists before any kernel uses it"),
    ]),
]
