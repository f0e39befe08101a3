import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mk import *
src=open('exercises/day086/heap_vs_pool.cu').read()
src=rep(src,'''struct BlockArena {
    // TODO 1: what take(), in_arena() and free_arena() need to know.
};''','''struct BlockArena {
    char* base = nullptr;           // the buffer
    unsigned long long slice = 0;   // bytes of each block's slice (a multiple of 256)
    unsigned long long total = 0;   // bytes of the buffer: slice times blocks
};''')
src=rep(src,'''    // TODO 2: the heap's size, then the buffer.
    (void)a;
    (void)blockBytes;
    (void)sliceBytes;
    (void)largest;
    (void)s;
    return cudaErrorNotYetImplemented;''','''    // What can reach the heap at once: in each block, what its lists take
    // past the slice, and one largest list (the one that did not fit).
    size_t spill = 0;
    for (size_t b : blockBytes) spill += b + largest > sliceBytes ? b + largest - sliceBytes : 0;
    // Half as much again, and 2 MiB, for malloc's own bookkeeping.
    cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, spill + spill / 2 + (2u << 20));
    if (e != cudaSuccess) return e;
    a->slice = (sliceBytes + 255) / 256 * 256;
    a->total = a->slice * blockBytes.size();
    return cudaMallocAsync((void**)&a->base, a->total, s);''')
src=rep(src,'''    // TODO 3
    (void)a;
    (void)s;
    return cudaErrorNotYetImplemented;''','''    cudaError_t e = cudaFreeAsync(a.base, s);
    a.base = nullptr;
    return e;''')
src=rep(src,'''    // TODO 4
    (void)a;
    (void)p;
    return false;''','''    // Below base, the difference wraps round to a huge number: one test
    // bounds both ends.
    return (uintptr_t)p - (uintptr_t)a.base < a.total;''')
src=rep(src,'''    // TODO 5
    (void)a;
    (void)used;
    (void)bytes;
    return nullptr;''','''    const unsigned long long want = (bytes + kListAlign - 1) / kListAlign * kListAlign;
    // Move the offset only when the list fits: a list that does not fit
    // leaves room for a smaller one after it.
    unsigned long long old = *(volatile unsigned long long*)used;
    while (old + want <= a.slice) {
        const unsigned long long seen = atomicCAS(used, old, old + want);
        if (seen == old) return (int*)(a.base + blockIdx.x * a.slice + old);
        old = seen;
    }
    return (int*)malloc(bytes);   // nullptr when the heap is full too''')
src=rep(src,'''    // TODO 6: a slice's lists need nothing (the next launch starts the
    // slices again); the heap's do.
    (void)a;
    (void)list;''','''    if (list != nullptr && !in_arena(a, list)) free(list);''')
src=rep(src,'''__global__ void build_lists(BlockArena a, int** lists, int n) {
    // TODO 7
    (void)a;
    (void)lists;
    (void)n;
}''','''__global__ void build_lists(BlockArena a, int** lists, int n) {
    __shared__ unsigned long long used;
    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread of the block, before any take
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int* p = take(a, &used, need(i) * sizeof(int));
    lists[i] = p;
    if (p == nullptr) return;
    for (int k = 0; k < need(i); k++) p[k] = i + k;
}''')
src=rep(src,'''__global__ void release_lists(BlockArena a, int** lists, int n) {
    // TODO 8
    (void)a;
    (void)lists;
    (void)n;
}''','''__global__ void release_lists(BlockArena a, int** lists, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    give_back(a, lists[i]);
    lists[i] = nullptr;
}''')
ex='heap-vs-pool'
write(ex,'correct.cu',['kind: correct',
 'mistake: none. The design: base, slice and total in the arena; in_arena by one unsigned difference; take moves the block\'s',
 'shared offset with a CAS loop only when the list fits (no overshoot, so a later smaller list may still fit); the heap is the',
 'spill bound plus half and 2 MiB; give_back frees only what in_arena does not own.',
 'why it is wrong: -','source: -'],src)
h1=rep(src,'''    return cudaMallocAsync((void**)&a->base, a->total, s);''','''    // The buffer is made on a stream of its own, so that the caller's
    // stream is not held up by the allocation.
    cudaStream_t own;
    e = cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
    if (e != cudaSuccess) return e;
    e = cudaMallocAsync((void**)&a->base, a->total, own);
    cudaError_t d = cudaStreamDestroy(own);
    (void)s;
    return e != cudaSuccess ? e : d;''')
write(ex,'wrong-arena-allocated-on-a-private-stream.cu',['kind: wrong',
 'mistake: make_arena allocates the buffer with cudaMallocAsync on a non-blocking stream it makes (and destroys) for the purpose,',
 'not on the caller\'s stream s.',
 'why it is wrong: nothing orders the allocation before build_lists on s: the kernels use memory whose allocation is not in their',
 'stream\'s order (and free_arena frees on s what was allocated on another stream with no event between). The pool has the',
 'memory at once, so the lists come out right.',
 'source: NVIDIA/AMGX#262 (cudaMallocAsync/cudaFreeAsync of a memory pool issued on another stream than the work\'s),',
 'rapidsai/rmm#2156'],h1)
h2=rep(src,"""    unsigned long long slice = 0;   // bytes of each block's slice (a multiple of 256)
    unsigned long long total = 0;   // bytes of the buffer: slice times blocks""","""    unsigned long long slice = 0;   // bytes a block may take: sliceBytes
    unsigned long long stride = 0;  // from one slice to the next: slice rounded up to 256
    unsigned long long total = 0;   // bytes of the buffer: stride times blocks""")
h2=rep(h2,"""    a->slice = (sliceBytes + 255) / 256 * 256;
    a->total = a->slice * blockBytes.size();""","""    a->slice = sliceBytes;
    a->stride = (sliceBytes + 255) / 256 * 256;
    a->total = a->stride * blockBytes.size();""")
h2=rep(h2,"""    while (old + want <= a.slice) {
        const unsigned long long seen = atomicCAS(used, old, old + want);
        if (seen == old) return (int*)(a.base + blockIdx.x * a.slice + old);""","""    while (old + want < a.slice) {
        const unsigned long long seen = atomicCAS(used, old, old + want);
        if (seen == old) return (int*)(a.base + blockIdx.x * a.stride + old);""")
write(ex,'wrong-fit-test-strict.cu',['kind: wrong',
 'mistake: a block may take sliceBytes of its slice (the stride between slices is that rounded up to 256), and take\'s fit test',
 'is old + want < slice: a list that fills the slice exactly goes to the heap.',
 'why it is wrong: a list that fits is sent to the heap. With the default 80% slices that never shows (some lists spill anyway);',
 'in the run with 100% slices the largest blocks\' lists fill sliceBytes to the byte, so each of them sends its last list to the',
 'heap and the run prints "lists from the heap: some" where none should.',
 'source: vyperlang/vyper#5081 (an allocator whose bounds test rejected the allocation that exactly fills the space)'],h2)
h3=rep(src,'''    if (threadIdx.x == 0) used = 0;
    __syncthreads();   // every thread of the block, before any take''','''    if (threadIdx.x == 0) used = 0;
    __syncwarp();   // the reset is seen before any take''')
write(ex,'wrong-offset-reset-behind-a-warp-barrier.cu',['kind: wrong',
 'mistake: thread 0 resets the block\'s shared offset and the kernel then waits with __syncwarp() instead of __syncthreads().',
 'why it is wrong: only warp 0 waits for the reset: the other warps may take from the slice before it (reading what a block that',
 'ran before on the same multiprocessor left in that shared memory) and the reset may then hand their bytes out again. A',
 'shared-memory race between warps that a run shows only now and then (racecheck sees it every time).',
 'source: alicevision/popsift#82 (shared memory initialized before an atomicAdd needed a __syncthreads), dirac-institute/kbmod#108 (a __syncthreads missing after a shared write)'],h3)
