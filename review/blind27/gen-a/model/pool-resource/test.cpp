#include "memory_resource.h"
#include "pool_resource.h"
#include <cstdio>
#include <memory>
#include <vector>
int g_events = 0, g_waits = 0, g_records = 0;
constexpr size_t MiB = size_t(1) << 20;
struct up {
    struct S { char* base; size_t used = 0; int taken = 0, returned = 0, bad = 0; std::vector<std::pair<char*, size_t>> out; };
    std::shared_ptr<S> s;
    up(char* b) : s(std::make_shared<S>()) { s->base = b; }
    void* allocate(mr::stream_ref, size_t n, size_t = 256) { n = (n + 255) / 256 * 256; char* p = s->base + s->used; s->used += n; s->taken++; s->out.push_back({p, n}); return p; }
    void deallocate(mr::stream_ref, void* p, size_t n, size_t = 256) noexcept { n = (n + 255) / 256 * 256; for (auto it = s->out.begin(); it != s->out.end(); ++it) if (it->first == p && it->second == n) { s->out.erase(it); s->returned++; return; } s->bad++; }
    void* allocate_sync(size_t n, size_t a = 256) { return allocate(cudaStream_t{}, n, a); }
    void deallocate_sync(void* p, size_t n, size_t a = 256) noexcept { deallocate(cudaStream_t{}, p, n, a); }
    bool operator==(const up& o) const { return s == o.s; }
    bool operator!=(const up& o) const { return s != o.s; }
    friend void get_property(const up&, mr::device_accessible) {}
};
int main() {
    static char region[200 << 20];
    cudaStream_t s0 = (cudaStream_t)1, s1 = (cudaStream_t)2, c = (cudaStream_t)3;
    up u(region);
    int chunks[4];
    {
        pool_resource pool(u, 16 * MiB);
        mr::resource_ref r(pool);
        cudaStream_t s[2] = {s0, s1};
        for (int rr = 0; rr < 64; rr++) {
            int first = rr % 2; void* x[2];
            x[first] = r.allocate(s[first], 4 * MiB - 100 * first);
            x[1 - first] = r.allocate(s[1 - first], 4 * MiB - 100 * (1 - first));
            for (int k = 0; k < 2; k++) r.deallocate(s[k], x[k], 4 * MiB - 100 * k);
        }
        chunks[0] = u.s->taken;
        void* b[4];
        for (int k = 0; k < 4; k++) b[k] = r.allocate(s0, 4 * MiB);
        for (int k : {0, 2, 1, 3}) r.deallocate(s0, b[k], 4 * MiB);
        void* y = r.allocate(s0, 16 * MiB);
        r.deallocate(s0, y, 16 * MiB);
        chunks[1] = u.s->taken;
        y = r.allocate(s1, 16 * MiB);
        void* z = r.allocate(s1, 4 * MiB);
        r.deallocate(s0, y, 16 * MiB); r.deallocate(s0, z, 4 * MiB);
        chunks[2] = u.s->taken;
        void* big = r.allocate(s0, 20 * MiB); r.deallocate(s0, big, 20 * MiB);
        chunks[3] = u.s->taken;
        printf("chunks %d %d %d %d waits %d\n", chunks[0], chunks[1], chunks[2], chunks[3], g_waits);
        // phase 7-like on a fresh pool
        up u7(region + (150 << 20));
        pool_resource p7(u7, 8 * MiB);
        mr::resource_ref r7(p7);
        int w0 = g_waits;
        void* c7 = r7.allocate(c, 8 * MiB); r7.deallocate(c, c7, 8 * MiB);
        void* a7 = r7.allocate(s0, 4 * MiB); void* b7 = r7.allocate(s1, 4 * MiB);
        printf("7: a7 %ld b7 %ld waits %d chunks %d\n", (char*)a7 - (char*)c7, (char*)b7 - (char*)c7, g_waits - w0, u7.s->taken);
        r7.deallocate(s0, a7, 4 * MiB); r7.deallocate(s1, b7, 4 * MiB);
    }
    printf("returned %d bad %d events left %d\n", u.s->returned, u.s->bad, g_events);
}
