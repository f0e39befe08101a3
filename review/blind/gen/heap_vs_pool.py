ID = "heap-vs-pool"
SRC = "exercises/day086/heap_vs_pool.cu"
NOTE = "Correct design: slices laid 256 bytes apart (stride = slice rounded up), take moves the shared offset with an atomicCAS loop so it never passes the slice (not atomicAdd with overshoot), heap sized 2 x spill + 4 MiB before any launch, give_back frees only what is not in the arena."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = [
("""struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
};""", """struct BlockArena {
    char* base = nullptr;
    size_t stride = 0;   // from one slice's start to the next: a multiple of 256
    size_t slice = 0;    // the bytes a block may use of its slice
    size_t total = 0;    // the buffer's bytes
};"""),
("""    // TODO 2: the heap's size, then the buffer.
    (void)a;
    (void)blockBytes;
    (void)sliceBytes;
    (void)largest;
    (void)s;
    return cudaErrorNotYetImplemented;
}""", """    // What can spill: per block, what its lists take beyond the slice, and
    // one largest list more (a list that does not fit wastes the rest).
    size_t spill = 0;
    for (size_t b : blockBytes) spill += b + largest > sliceBytes ? b + largest - sliceBytes : 0;
    // The heap keeps headers and rounds: twice the bytes, and a margin.
    cudaError_t err = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (4u << 20));
    if (err != cudaSuccess) return err;
    a->slice = sliceBytes;
    a->stride = (sliceBytes + 255) / 256 * 256;
    a->total = a->stride * blockBytes.size();
    return cudaMallocAsync(&a->base, a->total, s);
}"""),
("""    // TODO 3
    (void)a;
    (void)s;
    return cudaErrorNotYetImplemented;
}""", """    if (a.base == nullptr) return cudaSuccess;
    cudaError_t err = cudaFreeAsync(a.base, s);   // after the kernels queued on s
    a.base = nullptr;
    return err;
}"""),
("""    // TODO 4
    (void)a;
    (void)p;
    return false;
}""", """    const char* c = static_cast<const char*>(p);
    return a.base != nullptr && c >= a.base && c < a.base + a.total;
}"""),
("""    // TODO 5
    (void)a;
    (void)used;
    (void)bytes;
    return nullptr;
}""", """    const unsigned long long size = (bytes + kListAlign - 1) / kListAlign * kListAlign;
    char* slice = a.base + (size_t)blockIdx.x * a.stride;
    // The offset moves only when the list fits: it never passes the slice.
    unsigned long long old = atomicAdd(used, 0ull);
    while (old + size <= a.slice) {
        const unsigned long long seen = atomicCAS(used, old, old + size);
        if (seen == old) return reinterpret_cast<int*>(slice + old);
        old = seen;
    }
    return static_cast<int*>(malloc(bytes));   // nullptr when the heap is full
}"""),
("""    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    (void)a;
    (void)list;
}""", """    if (list != nullptr && !in_arena(a, list)) free(list);
}"""),
("""    // TODO 7
    (void)a;
    (void)lists;
    (void)n;
}""", """    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread sees the slice empty before it takes
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
}""", """    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    give_back(a, lists[i]);
    lists[i] = nullptr;
}"""),
]
CORRECT = (H("correct", "None intended: 256-aligned slice stride, CAS-moved shared offset that never passes the slice, heap sized for the spill only, only heap lists freed.", "n/a", "own"), E)
WRONGS = [
 ("reset-after-barrier",
  H("shared-memory race in a kernel (reset after the barrier)",
    "build_lists puts the barrier first and lets thread 0 clear the block's shared offset after it, 'once everyone has arrived'. Threads of other warps may take their lists before thread 0's store lands, and the reset then hands the same bytes out again; the shared variable is also read uninitialised by whoever comes first.",
    "Day 86, exercise: *used is 0 at the block's start, and the block's threads cut the slice by moving that offset; the reset must be visible to every thread before any take, i.e. before the barrier.",
    "own"),
  [("""    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread sees the slice empty before it takes""", """    __syncthreads();   // the whole block is here
    if (threadIdx.x == 0) used = 0;""")]),
 ("heap-for-every-list",
  H("heap sized for every list",
    "make_arena sizes the device heap for every list of every block (twice their bytes and a margin), 'in case the slices are too small'. Every list still gets memory and every sum is right, but the heap reserves several times what can spill, against the exercise's rule.",
    "Day 86, exercise: make_arena sizes the heap 'for the lists that can spill, not for every list'.",
    "own"),
  [("""    // one largest list more (a list that does not fit wastes the rest).
    size_t spill = 0;
    for (size_t b : blockBytes) spill += b + largest > sliceBytes ? b + largest - sliceBytes : 0;""",
    """    size_t spill = 0;
    (void)largest;
    for (size_t b : blockBytes) spill += b;   // whatever happens, every list fits""")]),
 ("null-written",
  H("null written through on a path the defaults never take",
    "build_lists checks the list only for the slice path: a list that falls back to malloc is filled without checking for NULL. The heap is sized so that malloc does not fail in the course's runs, so nothing shows; a heap that runs out (more lists, a fragmented heap) makes the kernel write through a null pointer.",
    "Day 86, 'malloc Inside a Kernel': a request the heap cannot satisfy returns NULL, no error: every device malloc must be checked; take's contract: 'malloc, whose null must not be written through'.",
    "own"),
  [("""    int* p = take(a, &used, need(i) * sizeof(int));
    lists[i] = p;
    if (p == nullptr) return;
    for (int k = 0; k < need(i); k++) p[k] = i + k;""", """    int* p = take(a, &used, need(i) * sizeof(int));
    lists[i] = p;
    for (int k = 0; k < need(i); k++) p[k] = i + k;   // take always finds room""")]),
 ("in-arena-no-upper-bound",
  H("a bounds check with one side",
    "in_arena only checks that the pointer is at or above the arena's start. Whether the heap's lists come out right depends on where the driver placed the device heap: below the arena they are freed as they should be; above it they are taken for arena lists, never freed, and the heap fills round after round.",
    "Day 86, exercise: give_back frees 'the heap's lists only'; in_arena says whether p points into a's buffer, whose end is part of the answer.",
    "own"),
  [("""    return a.base != nullptr && c >= a.base && c < a.base + a.total;""",
    """    return a.base != nullptr && c >= a.base;   // the buffer starts there""")]),
 ("free-arena-cudafree",
  H("freeing with the wrong API",
    "free_arena gives the buffer back with cudaFree instead of cudaFreeAsync on s. For memory from cudaMallocAsync cudaFree does not synchronise: the buffer goes back while the rounds' kernels queued on s may still use it. The main program waits right after, so the output is usually right.",
    "Day 86, exercise: free_arena 'gives the buffer back in s's order'; runtime API, cudaFree: no implicit synchronisation for cudaMallocAsync memory, callers must ensure all accesses have completed.",
    "https://github.com/kokkos/kokkos/issues/9307 (cudaFree of stream-ordered memory does not wait for the device)"),
  [("""    cudaError_t err = cudaFreeAsync(a.base, s);   // after the kernels queued on s""",
    """    (void)s;
    cudaError_t err = cudaFree(a.base);   // cudaFree waits for the device""")]),
]
