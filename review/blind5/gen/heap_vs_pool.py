STUDENT = "exercises/day086/heap_vs_pool.cu"
DIR = "heap-vs-pool"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. The arena keeps its start and end pointers and the slices'
    stride (the slice size rounded up to 256); in_arena compares p with both
    ends. take moves the block's shared offset with one atomicAdd of the list's
    rounded size and uses the returned old offset; a list that does not fit
    goes to malloc (its NULL kept as NULL, never written). The heap is sized to
    twice what can spill plus 4 MiB (malloc's own overhead), inside the
    program's "fits" bounds. Every thread of build_lists reaches the barrier
    before any returns.""",
    why="""it is not: each list is inside its own block's slice or from the heap;
    slices start on 256-byte boundaries and lists on 16; only heap lists are
    given to free; the heap is sized before the first launch.""",
    source="""own design from the lesson (day 86, "What a call costs", "The exercise:
    a pool per thread block, the heap as a fallback"); the CUDA Programming
    Guide, "Dynamic Global Memory Allocation and Operations".""")

CORRECT = [
("""struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
};""",
"""struct BlockArena {
    char* base = nullptr;   // the buffer's first byte
    char* end = nullptr;    // one past its last
    size_t stride = 0;      // one slice, rounded up to 256 bytes
    size_t slice = 0;       // what a block may cut from its slice
};"""),
("""    // TODO 2: the heap's size, then the buffer.
    (void)a;
    (void)blockBytes;
    (void)sliceBytes;
    (void)largest;
    (void)s;
    return cudaErrorNotYetImplemented;""",
"""    size_t spill = 0;
    for (size_t b : blockBytes) spill += b + largest > sliceBytes ? b + largest - sliceBytes : 0;
    cudaError_t err = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (4u << 20));
    if (err != cudaSuccess) return err;
    a->slice = sliceBytes;
    a->stride = (sliceBytes + 255) / 256 * 256;
    const size_t total = a->stride * blockBytes.size();
    void* p = nullptr;
    err = cudaMallocAsync(&p, total, s);
    if (err != cudaSuccess) return err;
    a->base = static_cast<char*>(p);
    a->end = a->base + total;
    return cudaSuccess;"""),
("""    // TODO 3
    (void)a;
    (void)s;
    return cudaErrorNotYetImplemented;""",
"""    if (a.base == nullptr) return cudaSuccess;
    cudaError_t err = cudaFreeAsync(a.base, s);
    a.base = a.end = nullptr;
    return err;"""),
("""    // TODO 4
    (void)a;
    (void)p;
    return false;""",
"""    const char* c = static_cast<const char*>(p);
    return c >= a.base && c < a.end;"""),
("""    // TODO 5
    (void)a;
    (void)used;
    (void)bytes;
    return nullptr;""",
"""    const unsigned long long rounded = (bytes + kListAlign - 1) / kListAlign * kListAlign;
    const unsigned long long off = atomicAdd(used, rounded);
    if (off + rounded <= a.slice) return reinterpret_cast<int*>(a.base + blockIdx.x * a.stride + off);
    return static_cast<int*>(malloc(bytes));"""),
("""    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    (void)a;
    (void)list;""",
"""    if (list != nullptr && !in_arena(a, list)) free(list);"""),
("""    // TODO 7
    (void)a;
    (void)lists;
    (void)n;
}""",
"""    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread, before any returns
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* p = take(a, &used, need(i) * sizeof(int));
    lists[i] = p;
    if (p == nullptr) return;
    for (int k = 0; k < need(i); k++) p[k] = i + k;
}"""),
("""    // TODO 8
    (void)a;
    (void)lists;
    (void)n;
}""",
"""    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    give_back(a, lists[i]);
    lists[i] = nullptr;
}"""),
]

WRONG = [
("give-back-frees-every-list", dict(
    kind="the wrong deallocator: device free() on lists cut from the arena",
    mistake="""give_back calls the device's free() on every list it is given, the
    slices' lists as well as the heap's, as if every list came from malloc.""",
    why="""in-kernel free() takes only pointers in-kernel malloc() returned: an
    address inside the cudaMallocAsync buffer is not a heap block, and freeing
    it is undefined (an error from the kernel, or the heap's bookkeeping
    corrupted for the next round).""",
    source="""dfukunaga.hatenablog.com/entry/2017/10/28/163538 (memory from cudaMalloc
    freed with free() inside a kernel: "Error!!"); apache/nuttx#1481 (memory
    freed by a free() of another heap than the one that allocated it)."""),
 [("""    if (list != nullptr && !in_arena(a, list)) free(list);""",
   """    if (list != nullptr) free(list);""")]),
("offset-read-then-added", dict(
    kind="a race in a kernel: the shared offset read, then moved by a separate atomic",
    mistake="""take reads the block's offset (*used) into its own variable and then
    calls atomicAdd to move it, ignoring the old value atomicAdd returns: two
    steps where the race lives between them.""",
    why="""threads of a block that read the offset before either's add lands get
    the same place in the slice: their lists overlap, one fills over the other,
    and the lists no longer hold what they should (the sums come out wrong); the
    offset may also pass the slice with a list already placed past it.""",
    source="""logicflowlearn.com/en/courses/cuda-gpu-programming/lessons/lesson-23 (the
    read-modify-write race: "both see the number 5, both add 1... a count was
    lost"); coddykit.com learn_cuda "atomicAdd and Friends" (atomicAdd "returns
    the old value", the place to use)."""),
 [("""    const unsigned long long off = atomicAdd(used, rounded);""",
   """    const unsigned long long off = *used;
    atomicAdd(used, rounded);""")]),
("heap-left-at-default", dict(
    kind="a missing step on a branch the defaults hide: the device heap left at its 8 MiB",
    mistake="""make_arena never sets cudaLimitMallocHeapSize, trusting the default heap
    because the lists that spill from 80% slices fit in it.""",
    why="""the heap must be sized before the first launch for what can spill: with
    small slices (the 1% run) nearly every list goes to the heap, 8 MiB is far
    too little, malloc returns NULL for most lists and the rounds' sums are
    wrong; the program prints "heap limit does not fit".""",
    source="""stackoverflow.com/questions/13150618 ("Understanding GPU heap memory": the heap
    limit must be set by cudaDeviceSetLimit, and allocations past it fail); the
    CUDA Programming Guide, "Heap Memory Allocation" ("a default heap of eight
    megabytes")."""),
 [("""    cudaError_t err = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (4u << 20));
    if (err != cudaSuccess) return err;
""",
   """    (void)spill;   // the default heap has room for what spills
    cudaError_t err = cudaSuccess;
""")]),
]
