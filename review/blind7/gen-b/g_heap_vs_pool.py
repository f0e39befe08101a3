from mk import *
EX = "heap-vs-pool"
s = read("exercises/day086/heap_vs_pool.cu")
s = sub(s, '''    // TODO 1: what take(), in_arena() and free_arena() need to know.
''', '''    char* base = nullptr;             // the buffer
    unsigned long long stride = 0;    // from one slice's start to the next (a multiple of 256)
    unsigned long long slice = 0;     // the bytes of a slice that take() hands out
    unsigned long long bytes = 0;     // the whole buffer
''')
s = sub(s, '''    // TODO 2: the heap's size, then the buffer.
    (void)a;
    (void)blockBytes;
    (void)sliceBytes;
    (void)largest;
    (void)s;
    return cudaErrorNotYetImplemented;
''', '''    const unsigned long long stride = (sliceBytes + 255) / 256 * 256;
    // What may land on the heap: a block's lists past its slice, and at
    // most one list's worth left unused at the slice's end.
    unsigned long long spill = 0;
    for (size_t b : blockBytes) spill += b + largest > stride ? b + largest - stride : 0;
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 3 * spill + (4u << 20));
    if (e != cudaSuccess) return e;
    a->stride = stride;
    a->slice = stride;   // the rounding is the slice's too
    a->bytes = stride * blockBytes.size();
    return cudaMallocAsync((void**)&a->base, a->bytes, s);
''')
s = sub(s, '''    // TODO 3
    (void)a;
    (void)s;
    return cudaErrorNotYetImplemented;
''', '''    cudaError_t e = cudaFreeAsync(a.base, s);
    a.base = nullptr;
    return e;
''')
s = sub(s, '''    // TODO 4
    (void)a;
    (void)p;
    return false;
''', '''    const char* c = static_cast<const char*>(p);
    return c >= a.base && c < a.base + a.bytes;
''')
s = sub(s, '''    // TODO 5
    (void)a;
    (void)used;
    (void)bytes;
    return nullptr;
''', '''    // The warp's asking lanes take their lists together: one atomicAdd on
    // the block's offset for all of them, in lane order; a lane whose list
    // ends past the slice goes to the heap (the lanes before it keep theirs).
    const unsigned mask = __activemask();
    const int lane = threadIdx.x % 32;
    const unsigned long long mine = (bytes + kListAlign - 1) / kListAlign * kListAlign;
    unsigned long long before = 0, total = 0;
    for (unsigned m = mask; m != 0; m &= m - 1) {
        const int src = __ffs(m) - 1;
        const unsigned long long v = __shfl_sync(mask, mine, src);
        total += v;
        if (src < lane) before += v;
    }
    const int leader = __ffs(mask) - 1;
    unsigned long long start = 0;
    if (lane == leader) start = atomicAdd(used, total);
    start = __shfl_sync(mask, start, leader);
    if (start + before + mine <= a.slice) return reinterpret_cast<int*>(a.base + blockIdx.x * a.stride + start + before);
    return static_cast<int*>(malloc(bytes));
''')
s = sub(s, '''    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    (void)a;
    (void)list;
''', '''    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    if (list != nullptr && !in_arena(a, list)) free(list);
''')
s = sub(s, '''    // TODO 7
    (void)a;
    (void)lists;
    (void)n;
''', '''    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread sees the offset at 0 before any takes
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* p = take(a, &used, need(i) * sizeof(int));
    lists[i] = p;
    if (p == nullptr) return;
    for (int k = 0; k < need(i); k++) p[k] = i + k;
''')
s = sub(s, '''    // TODO 8
    (void)a;
    (void)lists;
    (void)n;
''', '''    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    give_back(a, lists[i]);
    lists[i] = nullptr;
''')
correct = s
write(EX, "correct.cu", header("//", "correct", "none: base, stride, slice and size; in_arena by two pointer comparisons; take warp-aggregated: each asking lane's rounded size read by every lane (a shuffle per asking lane), one atomicAdd for the warp by its lowest lane, a lane whose list ends past the slice goes to the heap; heap = 3 x the spill bound (with one list's slack a block) + 4 MiB, set before the buffer is allocated.", "none.", "none (written from the lesson and the student file).") + correct)

W = [
("slice-rounded-down-to-256",
 "wrong (shows only when the slices are asked at 100%)",
 "make_arena rounds each slice to 256 bytes with sliceBytes & ~255 (taken for a round-up) instead of (sliceBytes + 255) / 256 * 256.",
 "the slice is then up to 255 bytes smaller than asked: at 80% (the default) lists spill to the heap anyway and the output is as expected, but at 100% the largest block's lists no longer all fit in its slice, and a run that should take nothing from the heap takes a few lists from it ('lists from the heap: some').",
 "google/flatbuffers#4002 (an initial size aligned with & ~(alignment - 1), which rounds down: review asks to round it up instead)",
 [('''    const unsigned long long stride = (sliceBytes + 255) / 256 * 256;
''', '''    const unsigned long long stride = sliceBytes & ~255ull;   // a multiple of 256
''')]),
("straddling-warp-sent-whole-to-the-heap",
 "wrong (a list that fits its slice is taken from the heap; the output does not show it)",
 "take lets a warp's lists fit whole or not at all: when the warp's total does not fit in what is left of the slice, every asking lane of the warp goes to the heap, and the offset is moved back.",
 "take must give a list from its block's slice when it fits there: the lanes before the one that does not fit would fit, and are sent to the heap. The heap is large enough and every list is right, so the output is as expected; only a count of device mallocs (or of heap lists against the least possible) sees it. Day 87's per-warp rule carried into Day 86, where each list stands alone.",
 "no public thread found; the rule is Day 87's ('fit whole or not at all') applied where the lesson asks for the opposite",
 [('''    if (lane == leader) start = atomicAdd(used, total);
    start = __shfl_sync(mask, start, leader);
    if (start + before + mine <= a.slice) return reinterpret_cast<int*>(a.base + blockIdx.x * a.stride + start + before);
    return static_cast<int*>(malloc(bytes));
''', '''    bool fits = false;
    if (lane == leader) {
        start = atomicAdd(used, total);
        fits = start + total <= a.slice;
        if (!fits) atomicAdd(used, 0ull - total);   // the warp's lists go to the heap: give the bytes back
    }
    start = __shfl_sync(mask, start, leader);
    fits = __shfl_sync(mask, fits, leader);
    if (fits) return reinterpret_cast<int*>(a.base + blockIdx.x * a.stride + start + before);
    return static_cast<int*>(malloc(bytes));
''')]),
("buffer-kept-when-the-heap-limit-fails",
 "wrong (leak on an error path no default run takes)",
 "make_arena allocates the buffer first and sets the heap's limit after it; when cudaDeviceSetLimit fails (as it does once a kernel that calls malloc has run, or for a size the device refuses) it returns the error with the buffer still allocated and a.base never set.",
 "the caller gets an error and an arena it cannot free: the buffer leaks. No run of the harness makes the limit fail, so the output is as expected; the lesson's own program shows the failure ('raising the heap limit after a launch: invalid argument').",
 "CHIP-SPV/chipStar#175 (once a kernel has launched, the heap size cannot be changed: the call fails), lessons/day086 (the late cudaDeviceSetLimit returns invalid argument)",
 [('''    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 3 * spill + (4u << 20));
    if (e != cudaSuccess) return e;
    a->stride = stride;
    a->slice = stride;   // the rounding is the slice's too
    a->bytes = stride * blockBytes.size();
    return cudaMallocAsync((void**)&a->base, a->bytes, s);
''', '''    char* buffer = nullptr;
    cudaError_t e = cudaMallocAsync((void**)&buffer, stride * blockBytes.size(), s);
    if (e != cudaSuccess) return e;
    e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, 3 * spill + (4u << 20));
    if (e != cudaSuccess) return e;
    a->base = buffer;
    a->stride = stride;
    a->slice = stride;   // the rounding is the slice's too
    a->bytes = stride * blockBytes.size();
    return cudaSuccess;
''')]),
]
for slug, kind, mis, why, src, edits in W:
    write(EX, "wrong-%s.cu" % slug, header("//", kind, mis, why, src) + apply(correct, edits))
