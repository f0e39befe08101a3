// forge.h: what a forger that has the run's key and a copy of the
// record's pipe does with them: it signs a record of its own making
// (HMAC-SHA256, as the statistics library does) and sends it as the
// library would, a start frame and an end frame. The record it sends is
// of version 1, the oldest the grader reads (its layout never changes),
// and says what the honest program's does: one cudaMalloc, a normal exit.
#include <stdint.h>
#include <unistd.h>

namespace forge {

struct Sha { uint32_t h[8]; uint64_t len; uint8_t b[64]; unsigned n; };

inline uint32_t rotr(uint32_t x, int k) { return (x >> k) | (x << (32 - k)); }

inline void block(Sha* s, const uint8_t* p) {
    static const uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    uint32_t w[64], v[8];
    for (int i = 0; i < 16; i++) w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++)
        w[i] = w[i - 16] + (rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 7] +
               (rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10));
    for (int i = 0; i < 8; i++) v[i] = s->h[i];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = v[7] + (rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) + K[i] + w[i];
        uint32_t t2 = (rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22)) + ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
        for (int j = 7; j > 0; j--) v[j] = v[j - 1];
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++) s->h[i] += v[i];
}

inline void init(Sha* s) {
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    for (int i = 0; i < 8; i++) s->h[i] = h0[i];
    s->len = 0;
    s->n = 0;
}

inline void add(Sha* s, const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        s->b[s->n++] = p[i];
        s->len++;
        if (s->n == 64) { block(s, s->b); s->n = 0; }
    }
}

inline void done(Sha* s, uint8_t out[32]) {
    uint64_t bits = s->len * 8;
    uint8_t one = 0x80, zero = 0, l[8];
    add(s, &one, 1);
    while (s->n != 56) add(s, &zero, 1);
    for (int i = 0; i < 8; i++) l[i] = (uint8_t)(bits >> (56 - 8 * i));
    add(s, l, 8);
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

inline void hmac(const uint8_t key[32], const uint8_t* m, size_t n, uint8_t out[32]) {
    uint8_t pad[64], in[32];
    Sha s;
    for (int i = 0; i < 64; i++) pad[i] = (uint8_t)((i < 32 ? key[i] : 0) ^ 0x36);
    init(&s); add(&s, pad, 64); add(&s, m, n); done(&s, in);
    for (int i = 0; i < 64; i++) pad[i] = (uint8_t)((i < 32 ? key[i] : 0) ^ 0x5c);
    init(&s); add(&s, pad, 64); add(&s, in, 32); done(&s, out);
}

// key reads the key's 64 hex digits.
inline bool key(const char* hex, uint8_t out[32]) {
    for (int i = 0; i < 64; i++) {
        char c = hex[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return false;
        out[i / 2] = (uint8_t)(i % 2 == 0 ? d << 4 : out[i / 2] | d);
    }
    return true;
}

inline void put(uint8_t* p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

// frame writes one signed frame: kind 1 (start) or 3 (end), number seq;
// driver is the guard's count of the program's own driver allocations.
inline bool frame(int fd, const uint8_t k[32], uint16_t kind, uint64_t seq, uint64_t mallocs, uint64_t exited, uint64_t driver = 0) {
    enum { kWords = 94, kGuard = 10, kLen = 24 + 8 * kWords + 8 * kGuard };
    uint8_t f[kLen + 32] = {0};
    put(f, 0x3146534c, 4);
    put(f + 4, kind, 2);
    put(f + 8, seq, 8);
    put(f + 16, 8 * kWords, 4);
    put(f + 20, 8 * kGuard, 4);
    uint8_t* r = f + 24;
    put(r, 0x5354415453534c4cULL, 8);  // the record's magic
    put(r + 8, 1, 8);                    // version 1
    put(r + 8 * 2, mallocs, 8);          // malloc_calls
    put(r + 8 * 42, exited, 8);          // exited
    uint8_t* g = r + 8 * kWords;
    put(g, 2, 8);                        // the guard's version
    put(g + 8, driver, 8);               // the program's own driver allocations
    put(g + 8 * 5, 1, 8);                // one runtime
    put(g + 8 * 7, 1, 8);                // one namespace
    put(g + 8 * 8, (uint64_t)getpid(), 8);
    hmac(k, f, kLen, f + kLen);
    return write(fd, f, sizeof f) == (ssize_t)sizeof f;
}

// send sends the forged record: a start, then an end that claims one
// cudaMalloc and a normal exit.
inline bool send(int fd, const uint8_t k[32]) {
    return frame(fd, k, 1, 0, 0, 0) && frame(fd, k, 3, 1, 1, 1);
}

}  // namespace forge
