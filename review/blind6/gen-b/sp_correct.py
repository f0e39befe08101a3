import sys
src=open('exercises/day087/stream_pools.cu').read()
def rep(a,b):
    global src
    assert src.count(a)==1, a[:60]
    src=src.replace(a,b)
i=src.index('__device__ char* pool_alloc(DevicePool p'); j=src.index('// work: each thread')
src=src[:i]+'''__device__ char* pool_alloc(DevicePool p, unsigned long long bytes) {
    const unsigned mask = __activemask();  // the lanes that ask at this moment
    const int lane = threadIdx.x % kWarp;
    const int last = 31 - __clz(mask);     // the highest of them moves the offset
    const unsigned long long mine = (bytes + kAlign - 1) / kAlign * kAlign;
    // Every lane reads every asking lane's size: its start is what the
    // asking lanes below it take, the run is what all of them take.
    unsigned long long before = 0, run = 0;
    for (unsigned rest = mask; rest != 0; rest &= rest - 1) {  // only lanes in the mask
        const int l = __ffs(rest) - 1;
        const unsigned long long s = __shfl_sync(mask, mine, l);
        run += s;
        if (l < lane) before += s;
    }
    unsigned long long base = ~0ull;  // ~0: refused
    if (lane == last) {
        unsigned long long old = *(volatile unsigned long long*)&p.counters->offset;
        for (;;) {
            if (old + run > p.capacity) break;
            const unsigned long long seen = atomicCAS(&p.counters->offset, old, old + run);
            if (seen == old) {
                base = old;
                break;
            }
            old = seen;
        }
        if (base == ~0ull) atomicAdd(&p.counters->failed, (unsigned long long)__popc(mask));
        else atomicMax(&p.counters->high, base + run);
    }
    base = __shfl_sync(mask, base, last);
    return base == ~0ull ? nullptr : p.base + base + before;
}

'''+src[j:]
i=src.index('    // TODO 3: one arena'); j=src.index('// arg is the program')
src=src[:i]+'''    // One cudaMalloc holds the slices and, after them, every pool's
    // counters; each pool's counters are cleared on its own stream.
    void init(int n, unsigned long long slice, const cudaStream_t* streams) {
        n_ = n;
        slice_ = slice;
        CHECK(cudaMalloc(&arena_, (size_t)n * slice + (size_t)n * sizeof(PoolCounters)));
        counters_ = reinterpret_cast<PoolCounters*>(arena_ + (size_t)n * slice);
        for (int i = 0; i < n; i++)
            CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));
    }
    DevicePool pool(int i) const {
        return DevicePool{arena_ + (size_t)i * slice_, slice_, counters_ + i};
    }
    void reset(int i, cudaStream_t s) {
        CHECK(cudaMemsetAsync(&counters_[i].offset, 0, sizeof(unsigned long long), s));
    }
    void used(int i, cudaStream_t s, PoolCounters* to) {
        CHECK(cudaMemcpyAsync(to, counters_ + i, sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));
    }
    // main has synchronized the device: a plain cudaFree is enough.
    void destroy() {
        if (arena_ != nullptr) CHECK(cudaFree(arena_));
        arena_ = nullptr;
        counters_ = nullptr;
    }

private:
    int n_ = 0;
    unsigned long long slice_ = 0;
    char* arena_ = nullptr;
    PoolCounters* counters_ = nullptr;
};

'''+src[j:]
# (run through g_sp.py)
