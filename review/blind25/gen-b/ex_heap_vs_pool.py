from lib import build

S = "exercises/day086/heap_vs_pool.cu"

R = [
("""struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
};""",
"""struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
    char* base;                  // the buffer, from cudaMallocAsync
    unsigned long long length;   // its bytes: slices * stride
    unsigned long long stride;   // one slice: sliceBytes rounded up to 256, and one 256-byte line more
    int slices;                  // one a thread block, laid out from the END: block b's is slice slices - 1 - b
};"""),
("""    // TODO 2: the heap's size, then the buffer.
    (void)a;
    (void)blockBytes;
    (void)sliceBytes;
    (void)largest;
    (void)s;
    return cudaErrorNotYetImplemented;""",
"""    // TODO 2: the heap's size, then the buffer.
    const unsigned long long stride = (sliceBytes + 255) / 256 * 256 + 256;
    // What can spill from each block: its lists, less what its slice
    // holds, with room for one list more (the list that does not fit
    // where the offset stands); three times that, and 4 MiB for malloc's
    // own bookkeeping.
    unsigned long long spill = 0;
    for (size_t b : blockBytes) spill += b + largest > stride ? b + largest - stride : 0;
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)(3 * spill + (4ull << 20)));
    if (e != cudaSuccess) return e;
    a->stride = stride;
    a->slices = (int)blockBytes.size();
    a->length = stride * (unsigned long long)a->slices;
    a->base = nullptr;
    return cudaMallocAsync((void**)&a->base, (size_t)a->length, s);"""),
("""    // TODO 3
    (void)a;
    (void)s;
    return cudaErrorNotYetImplemented;""",
"""    // TODO 3
    const cudaError_t e = cudaFreeAsync(a.base, s);
    a.base = nullptr;
    return e;"""),
("""    // TODO 4
    (void)a;
    (void)p;
    return false;""",
"""    // TODO 4
    const uintptr_t q = (uintptr_t)p, first = (uintptr_t)a.base;
    return q >= first && q < first + a.length;"""),
("""    // TODO 5
    (void)a;
    (void)used;
    (void)bytes;
    return nullptr;""",
"""    // TODO 5
    const unsigned long long want = (bytes + kListAlign - 1) / kListAlign * kListAlign;
    char* const slice = a.base + (unsigned long long)(a.slices - 1 - (int)blockIdx.x) * a.stride;
    unsigned long long old = *(volatile unsigned long long*)used;
    while (old + want <= a.stride) {
        const unsigned long long seen = atomicCAS(used, old, old + want);
        if (seen == old) return (int*)(slice + old);
        old = seen;
    }
    return (int*)malloc(bytes);   // 16-byte aligned, or nullptr"""),
("""    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    (void)a;
    (void)list;""",
"""    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    if (!in_arena(a, list)) free(list);"""),
("""    // TODO 7
    (void)a;
    (void)lists;
    (void)n;""",
"""    // TODO 7
    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // zeroed before any thread of the block takes
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* p = take(a, &used, need(i) * sizeof(int));
    lists[i] = p;
    if (p == nullptr) return;
    for (int k = 0; k < need(i); k++) p[k] = i + k;"""),
("""    // TODO 8
    (void)a;
    (void)lists;
    (void)n;""",
"""    // TODO 8
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || lists[i] == nullptr) return;
    give_back(a, lists[i]);
    lists[i] = nullptr;"""),
]

DESIGN = ("the slices laid out in REVERSE block order (block b's slice is slice slices - 1 - b, block 0's the last in "
          "the buffer); a slice is sliceBytes rounded up to 256 and ONE 256-byte line more, all of it usable; the arena "
          "as its base, its length in bytes, the stride and the slice count; in_arena by first <= p < first + length "
          "on the integer address; take: a compare-and-swap loop on the block's shared offset that tests the fit before "
          "every try, else device malloc; the heap sized from this design's own stride (three times what can spill, "
          "each block's lists plus one largest list less the stride, and 4 MiB), before the buffer; free_arena a "
          "cudaFreeAsync on s; give_back frees only what in_arena disowns")

WRONGS = [
    ("reversed-slice-index-one-past",
     "not sure where: block 0's lists lie past the arena's end, in memory the arena does not own (likely mapped and "
     "unused pool memory, so no fault from the writes); in_arena disowns them, so release_lists hands them to the "
     "device free(), which most likely faults or corrupts the heap (an error, later rounds wrong); if it ignores "
     "pointers outside its heap, nothing printed changes and only a checker of device accesses sees it",
     "the reversed slice index is written slices - blockIdx.x instead of slices - 1 - blockIdx.x",
     "with the slices laid out from the end, block b's slice starts at (slices - 1 - b) * stride; one past makes every "
     "block use the slice of the block before it and block 0 a slice beyond the buffer",
     "own",
     [("(unsigned long long)(a.slices - 1 - (int)blockIdx.x) * a.stride;",
       "(unsigned long long)(a.slices - (int)blockIdx.x) * a.stride;")]),
    ("fit-tested-before-an-unconditional-atomicadd",
     "a race, the program's own output in the default run most likely: when a slice fills, several threads pass the "
     "test together and all add, so lists run past the slice's end (over the next slice's lists, or past the arena "
     "for block 0): lists not holding what they should, or a fault at their give-back",
     "take reads the shared offset, tests that the list fits, then moves the offset with an atomicAdd that does not "
     "test again",
     "between the read and the add other threads of the block move the offset; only a compare-and-swap (or an add "
     "whose result is tested and undone) makes the test and the move one step",
     "own",
     [("""    unsigned long long old = *(volatile unsigned long long*)used;
    while (old + want <= a.stride) {
        const unsigned long long seen = atomicCAS(used, old, old + want);
        if (seen == old) return (int*)(slice + old);
        old = seen;
    }
""", """    if (*(volatile unsigned long long*)used + want <= a.stride) {
        const unsigned long long old = atomicAdd(used, want);
        return (int*)(slice + old);
    }
""")]),
    ("heap-sized-to-the-spill-with-no-slack",
     "other arguments only, most likely (small SLICE_PERCENT, so that much more spills): lists without memory; the "
     "default run right (the driver raises a small limit to at least 4 MiB)",
     "make_arena sets the heap's limit to exactly what can spill, with no room for malloc's bookkeeping",
     "the device heap spends memory of its own on every allocation and fragments over the rounds; a heap sized to the "
     "lists' bytes alone refuses lists once much of the demand goes there",
     "related: celeritas-project/celeritas#554 (device mallocs failing until the heap limit was raised above the bare need)",
     [("(size_t)(3 * spill + (4ull << 20))", "(size_t)spill")]),
    ("arena-given-back-with-a-blocking-cudafree",
     "the record only: a host wait (cudaFree synchronises the device) and a free not in s's order; every printed line "
     "right",
     "free_arena gives the buffer back with cudaFree instead of cudaFreeAsync on s",
     "the buffer came from cudaMallocAsync and must go back in s's order; cudaFree makes the host wait for all the "
     "device's work at that point",
     "own",
     [("    const cudaError_t e = cudaFreeAsync(a.base, s);\n", "    (void)s;\n    const cudaError_t e = cudaFree(a.base);\n")]),
]


def rows():
    return build("heap-vs-pool", S, "cu", R, DESIGN, WRONGS)
