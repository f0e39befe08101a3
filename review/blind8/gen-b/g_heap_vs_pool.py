from mk import student, sub, build

T = student("exercises/day086/heap_vs_pool.cu")

R = [
("""struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
};""",
"""struct BlockArena {
    char* base;                 // the buffer
    unsigned long long stride;  // one slice: sliceBytes in whole 4 KiB pages
    unsigned long long bytes;   // the whole buffer: a slice per thread block
};"""),
("""    // TODO 2: the heap's size, then the buffer.
    (void)a;
    (void)blockBytes;
    (void)sliceBytes;
    (void)largest;
    (void)s;
    return cudaErrorNotYetImplemented;""",
"""    // Whole pages: at most 3840 bytes past sliceBytes rounded up to 256.
    const unsigned long long stride = (sliceBytes + 4095) / 4096 * 4096;
    // What can reach the heap, from the slices really made: a block whose
    // lists fit in its slice sends none there; one whose lists do not can
    // send what passes the slice and the list that straddles its end.
    size_t spill = 0;
    for (size_t b : blockBytes) spill += b > stride ? b - stride + largest : 0;
    // Twice that, for malloc's own bookkeeping and its fragments, and 2 MiB.
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (2u << 20));
    if (e != cudaSuccess) return e;
    a->stride = stride;
    a->bytes = stride * blockBytes.size();
    a->base = nullptr;
    return cudaMallocAsync((void**)&a->base, a->bytes, s);"""),
("""    // TODO 3
    (void)a;
    (void)s;
    return cudaErrorNotYetImplemented;""",
"""    return cudaFreeAsync(a.base, s);"""),
("""    // TODO 4
    (void)a;
    (void)p;
    return false;""",
"""    const uintptr_t u = (uintptr_t)p, b = (uintptr_t)a.base;
    return u >= b && u - b < a.bytes;"""),
("""    // TODO 5
    (void)a;
    (void)used;
    (void)bytes;
    return nullptr;""",
"""    // Lists are cut from the slice's top down: *used is what the block has
    // taken from the top, and a list ends where the lists taken before it
    // begin. The offset may pass the slice: the list that made it pass,
    // and every list after it, goes to the heap.
    const unsigned long long r = (bytes + kListAlign - 1) / kListAlign * kListAlign;
    const unsigned long long end = atomicAdd(used, r) + r;
    if (end <= a.stride) return (int*)(a.base + (size_t)blockIdx.x * a.stride + (a.stride - end));
    return (int*)malloc(bytes);"""),
("""    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    (void)a;
    (void)list;""",
"""    if (list != nullptr && !in_arena(a, list)) free(list);"""),
("""    // TODO 7
    (void)a;
    (void)lists;
    (void)n;""",
"""    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();
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
"""    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    give_back(a, lists[i]);
    lists[i] = nullptr;"""),
]

C = T
for o, n in R:
    C = sub(C, o, n)

CORRECT = ("correct",
           "none: slices of whole 4 KiB pages (the most the exercise allows past the 256-byte rounding); lists cut from each slice's top down by one atomicAdd on the shared offset (which may pass the slice: that list and the ones after it go to the heap); the heap sized from the slices really made (for each block whose lists pass its slice, the excess and one largest list), doubled, plus 2 MiB, before the buffer; in_arena by an unsigned difference against the buffer's size; base, stride and size kept.",
           "none.",
           "none (written from the lesson and the student file).")

W = [
    ("heap-with-a-flat-megabyte-for-bookkeeping",
     ("wrong (shows only with small slices, SLICE_PERCENT 1: lists without memory)",
      "the heap is sized as what can spill plus a flat 1 MiB for malloc's bookkeeping, not in proportion to the lists that reach it.",
      "device malloc spends bytes of its own on every block it hands out, and fragments; with 80% slices a few thousand lists spill and the driver rounds the limit up to at least 4 MiB, so they all fit; with 1% slices nearly all 100,000 lists of a round spill, and 1 MiB cannot hold the overhead of that many: some mallocs return null (lists without memory, rounds summed wrong), while the program's own check still says the limit fits.",
      "celeritas-project/celeritas#554 (a device heap sized for what the data take, too small once malloc's use grew), owl-project/owl#151 (device malloc returning null for a heap smaller than the allocations plus their overhead)"),
     [("    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * spill + (2u << 20));",
       "    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, spill + (1u << 20));"),
      ("    // Twice that, for malloc's own bookkeeping and its fragments, and 2 MiB.\n",
       "    // And a megabyte for malloc's own bookkeeping.\n")]),
    ("offset-reset-by-the-last-thread-of-the-block",
     ("wrong (uninitialized shared offset in the last, partial thread block: shows only where that block's lists should all fit, SLICE_PERCENT 100, and to initcheck)",
      "build_lists returns early for threads past n before the reset, and the offset is reset by the block's last thread (threadIdx.x == blockDim.x - 1) instead of its first.",
      "in the last thread block of a run whose LISTS is not a multiple of 256 (the default 100000 is not), the last thread is past n and has returned: no thread resets the offset, and the block cuts its slice from whatever the shared memory held (another block's final offset, usually past the slice): its lists all go to the heap; with 80% slices 'some' lists come from the heap anyway, with 100% slices the line says 'some' instead of 'none'.",
      "dlsys-course/examples#1 (shared memory left uninitialised in the last block when n is not a multiple of the block size), lattice/quda#276 (threads that return early never write their shared memory), numba/numba#6076 (shared memory holds what an earlier block left)"),
     [("""    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
""", """    __shared__ unsigned long long used;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (threadIdx.x == blockDim.x - 1) used = 0;
    __syncthreads();
""")]),
    ("arena-zeroed-on-the-legacy-stream",
     ("wrong (the record only: a use of the arena not ordered after its allocation)",
      "make_arena clears the new buffer with cudaMemset (no stream: the legacy default stream) right after allocating it on s, 'so that no list starts with garbage'.",
      "the buffer's allocation is ordered on s, a non-blocking stream, and nothing orders the legacy stream after it: the memset may run before the allocation is ready, and its writes race the first build_lists if the driver runs it late; the lists are written before they are read, so the output is right, and the record shows a use of the arena before its allocation was ordered.",
      "bheisler/RustaCUDA#59 (a copy on the default stream racing a kernel on a non-blocking stream), kokkos/kokkos#5391 (do not rely on the legacy stream's implicit synchronisation)"),
     [("    return cudaMallocAsync((void**)&a->base, a->bytes, s);",
       "    e = cudaMallocAsync((void**)&a->base, a->bytes, s);\n    if (e != cudaSuccess) return e;\n    return cudaMemset(a->base, 0, a->bytes);")]),
    ("slices-given-a-spare-page",
     ("wrong (the record only: a buffer larger than the exercise allows; every printed line is right)",
      "each slice is given one page more than sliceBytes rounded to whole pages, as headroom ((sliceBytes + 4095) / 4096 * 4096 + 4096).",
      "the exercise allows a slice at most 4 KiB larger than sliceBytes rounded up to 256; these are 4 to 8 KiB larger (at 1% slices, 8 KiB for 512 asked), so the arena is up to 16 times what was asked; fewer lists spill, the heap sized from them passes the program's check at the default sizes (it fails it only with a million lists at 80%, where the heap comes out below what spills past the largest allowed slices), and otherwise only the size of the cudaMallocAsync shows the breach (at slices of 4% or less the harness's 'addresses beyond the arena' probe lands inside this arena, but it lands inside the correct file's page-rounded arena too).",
      "google/flatbuffers#4002 (a size rounded with the wrong formula: review asked for the plain round-up), own"),
     [("    const unsigned long long stride = (sliceBytes + 4095) / 4096 * 4096;",
       "    const unsigned long long stride = (sliceBytes + 4095) / 4096 * 4096 + 4096;"),
      ("    // Whole pages: at most 3840 bytes past sliceBytes rounded up to 256.\n",
       "    // Whole pages, and one page of headroom.\n")]),
]

build("heap-vs-pool", "cu", "//", C, CORRECT, W)
