import sys; sys.path.insert(0, "gen-b")
from fill import fill
H = ["kind: correct",
     "mistake: none. Design: slices of sliceBytes rounded up to 512 bytes (at least 512; a 256-byte boundary, at most 511 bytes more); the arena as the buffer's start as an int pointer, the stride and the slice count, its end computed in bytes on a char pointer at each in_arena (first <= p < first + stride x slices, pointer comparisons); take: a compare-and-swap loop on the block's shared offset, the offset read first through a volatile load, moved only while the rounded list still fits in the stride, else device malloc of the bytes asked; the heap sized before the buffer is queued at three times the spill of the slices as made (each block's lists plus the largest, past the stride) and 4 MiB, rounded up to 1 MiB; give_back frees only what is not in the arena; the buffer freed on s",
     "why it is wrong: -",
     "source: own"]
E = [("""struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
};""", """struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
    int* base = nullptr;               // the buffer: slice b starts base + b x stride bytes
    unsigned long long stride = 0;     // bytes a slice, a multiple of 512
    unsigned long long slices = 0;     // one a thread block of build_lists
};"""),
("""    // TODO 2: the heap's size, then the buffer.
    (void)a;
    (void)blockBytes;
    (void)sliceBytes;
    (void)largest;
    (void)s;
    return cudaErrorNotYetImplemented;""", """    // TODO 2: the heap's size, then the buffer.
    const size_t stride = std::max<size_t>(512, (sliceBytes + 511) / 512 * 512);
    size_t spill = 0;   // what the lists of each block may send to the heap, at most
    for (size_t b : blockBytes) spill += b + largest > stride ? b + largest - stride : 0;
    const size_t heap = (3 * spill + (4u << 20) + (1u << 20) - 1) / (1u << 20) * (1u << 20);
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap);
    if (e != cudaSuccess) return e;
    a->stride = stride;
    a->slices = blockBytes.size();
    return cudaMallocAsync((void**)&a->base, stride * blockBytes.size(), s);"""),
("""    // TODO 3
    (void)a;
    (void)s;
    return cudaErrorNotYetImplemented;""", """    // TODO 3
    cudaError_t e = cudaFreeAsync(a.base, s);
    a.base = nullptr;
    return e;"""),
("""    // TODO 4
    (void)a;
    (void)p;
    return false;""", """    // TODO 4
    const char* first = (const char*)a.base;
    const char* c = (const char*)p;
    return c >= first && c < first + a.stride * a.slices;"""),
("""    // TODO 5
    (void)a;
    (void)used;
    (void)bytes;
    return nullptr;""", """    // TODO 5
    const unsigned long long size = (bytes + kListAlign - 1) / kListAlign * kListAlign;
    unsigned long long old = *(volatile unsigned long long*)used;
    while (old + size <= a.stride) {
        const unsigned long long seen = atomicCAS(used, old, old + size);
        if (seen == old) return (int*)((char*)a.base + blockIdx.x * a.stride + old);
        old = seen;
    }
    return (int*)malloc(bytes);"""),
("""    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    (void)a;
    (void)list;""", """    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    if (list != nullptr && !in_arena(a, list)) free(list);"""),
("""    // TODO 7
    (void)a;
    (void)lists;
    (void)n;""", """    // TODO 7
    __shared__ unsigned long long used;
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
    (void)n;""", """    // TODO 8
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    give_back(a, lists[i]);
    lists[i] = nullptr;"""),
]
fill("/work/main/exercises/day086/heap_vs_pool.cu", "heap-vs-pool/correct.cu", H, E)
