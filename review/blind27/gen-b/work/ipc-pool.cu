// One pool, two processes, and no host waits between them. The parent
// makes a pool it can export and sends it to its child as a file
// descriptor over a socket pair; each round it allocates a block from
// the pool, fills it (slowly) and hands the block to the child, which
// imports it, reads it on its own stream (slowly, twice) and frees its
// import; only then may the parent free the block. The order between
// the two processes' GPU work is kept by events they share, not by
// either host waiting for its GPU: the socket only carries the handles,
// the export data and a byte of answer.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// A slow producer: each thread waits ns nanoseconds, then writes v into
// its strided share of x. A reader not ordered after it sees the old
// contents.
__global__ void fill(int* x, int n, int v, unsigned long long ns) {
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns) {}
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] = v;
}

// A slow consumer: adds x up as it is when the kernel starts, into
// out[0], and again ns nanoseconds later, into out[1]. A block read
// before its fill has run shows in out[0]; a block its owner freed and
// filled again while this kernel still used it, in out[1].
__global__ void use(const int* x, int n, unsigned long long ns, unsigned long long* out) {
    const volatile int* v = x;
    const int i0 = blockIdx.x * blockDim.x + threadIdx.x, step = blockDim.x * gridDim.x;
    unsigned long long first = 0, last = 0;
    for (int i = i0; i < n; i += step) first += v[i];
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns) {}
    for (int i = i0; i < n; i += step) last += v[i];
    atomicAdd(&out[0], first);
    atomicAdd(&out[1], last);
}

const unsigned long long kFillNs = 10 * 1000 * 1000ull;   // 10 ms
const unsigned long long kUseNs = 30 * 1000 * 1000ull;    // 30 ms

// ---- The socket: plain POSIX, given ----

// send_all and recv_all move exactly n bytes, or fail.
static bool send_all(int sock, const void* p, size_t n) {
    const char* c = (const char*)p;
    while (n > 0) {
        ssize_t w = send(sock, c, n, MSG_NOSIGNAL);
        if (w <= 0) return false;
        c += w; n -= (size_t)w;
    }
    return true;
}

static bool recv_all(int sock, void* p, size_t n) {
    char* c = (char*)p;
    while (n > 0) {
        ssize_t r = recv(sock, c, n, 0);
        if (r <= 0) return false;
        c += r; n -= (size_t)r;
    }
    return true;
}

// send_fd passes a descriptor to the process at the other end of the
// socket (SCM_RIGHTS): it gets its own descriptor for the same object.
static bool send_fd(int sock, int fd) {
    char byte = 'f';
    struct iovec iov = {&byte, 1};
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctl.buf;
    msg.msg_controllen = sizeof ctl.buf;
    struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1;
}

// recv_fd receives a descriptor sent by send_fd; -1 when none came.
static int recv_fd(int sock) {
    char byte;
    struct iovec iov = {&byte, 1};
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } ctl;
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctl.buf;
    msg.msg_controllen = sizeof ctl.buf;
    if (recvmsg(sock, &msg, 0) != 1) return -1;
    struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
    if (c == nullptr || c->cmsg_type != SCM_RIGHTS) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof(int));
    return fd;
}

// ---- The child: imports the pool, the events and each block ----

static int importer(int sock, int rounds, int n) {
    CHECK(cudaSetDevice(0));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long* sums = nullptr;   // two a round: out[0] and out[1] of use
    CHECK(cudaMalloc(&sums, 2 * rounds * sizeof *sums));
    CHECK(cudaMemsetAsync(sums, 0, 2 * rounds * sizeof *sums, s));
    cudaMemPool_t pool = nullptr;
    // filled: the parent's GPU has filled the block handed over.
    // freed: the child's GPU is done with the block and its import.
    cudaEvent_t filled = nullptr, freed = nullptr;
    // TODO 3: receive the pool's descriptor, import the pool, close the
    // descriptor; open the two events the parent made (the child makes none).
    int fd = recv_fd(sock);
    if (fd < 0) { fprintf(stderr, "importer: no pool descriptor came\n"); return 1; }
    cudaError_t imported = cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
    close(fd);
    CHECK(imported);
    cudaIpcEventHandle_t handles[2];   // filled's, then freed's
    if (!recv_all(sock, handles, sizeof handles)) { fprintf(stderr, "importer: no event handles came\n"); return 1; }
    CHECK(cudaIpcOpenEventHandle(&filled, handles[0]));
    CHECK(cudaIpcOpenEventHandle(&freed, handles[1]));
    for (int r = 0; r < rounds; r++) {
        cudaMemPoolPtrExportData data;
        if (!recv_all(sock, &data, sizeof data)) { fprintf(stderr, "importer: no block came in round %d\n", r); return 1; }
        int* block = nullptr;
        // TODO 4: import the block; the kernel below must not start
        // before the parent's fill of it is done.
        // filled's latest record is this round's or a later round's (the
        // parent runs ahead): either comes after this block's fill on the
        // parent's stream.
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        CHECK(cudaStreamWaitEvent(s, filled, 0));
        use<<<128, 256, 0, s>>>(block, n, kUseNs, sums + 2 * r);
        // TODO 5: give the block back: free the import, let the parent's
        // GPU know when that is done, and answer the parent, all without
        // waiting here for the kernel.
        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaEventRecord(freed, s));
        const unsigned char answer = (unsigned char)r;
        if (!send_all(sock, &answer, 1)) { fprintf(stderr, "importer: the parent is gone (round %d)\n", r); return 1; }
    }
    unsigned long long* got = nullptr;    // pinned: the copy into it is really asynchronous
    CHECK(cudaMallocHost(&got, 2 * rounds * sizeof *got));
    CHECK(cudaMemcpyAsync(got, sums, 2 * rounds * sizeof *got, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));      // the child's one host wait
    // The child closes its handles of the parent's events first; the
    // parent, their maker, destroys them once the child has sent its sums.
    if (filled != nullptr) CHECK(cudaEventDestroy(filled));
    if (freed != nullptr) CHECK(cudaEventDestroy(freed));
    if (!send_all(sock, got, 2 * rounds * sizeof *got)) return 1;
    CHECK(cudaFreeHost(got));
    CHECK(cudaFree(sums));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

// ---- The parent: owns the pool and allocates ----

// exporter counts in before the rounds whose block the child found filled
// when it began reading, and in after those whose block was still the same
// when it read again.
static int exporter(int sock, int rounds, int n, int* before, int* after, cudaMemPool_t* pool_out) {
    const size_t bytes = (size_t)n * sizeof(int);
    CHECK(cudaSetDevice(0));
    int types = 0;
    CHECK(cudaDeviceGetAttribute(&types, cudaDevAttrMemoryPoolSupportedHandleTypes, 0));
    if (!(types & cudaMemHandleTypePosixFileDescriptor)) {
        fprintf(stderr, "device 0 cannot export pools as file descriptors\n");
        return 1;
    }
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaMemPool_t pool = nullptr;
    cudaEvent_t filled = nullptr, freed = nullptr;   // as in the child
    // TODO 1: make a pool on device 0 that can be exported as a POSIX
    // file descriptor, send it to the child and close it; make the events
    // the two processes order their GPU work with, and send the child
    // what it needs to open them.
    {
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        CHECK(cudaMemPoolCreate(&pool, &props));
        *pool_out = pool;   // main destroys it once the child is gone, whatever happens here
        int fd = -1;
        CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
        const bool sent = send_fd(sock, fd);
        close(fd);
        if (!sent) { fprintf(stderr, "exporter: the pool's descriptor could not be sent\n"); return 1; }
        CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming | cudaEventInterprocess));
        CHECK(cudaEventCreateWithFlags(&freed, cudaEventDisableTiming | cudaEventInterprocess));
        cudaIpcEventHandle_t handles[2];
        CHECK(cudaIpcGetEventHandle(&handles[0], filled));
        CHECK(cudaIpcGetEventHandle(&handles[1], freed));
        if (!send_all(sock, handles, sizeof handles)) { fprintf(stderr, "exporter: the event handles could not be sent\n"); return 1; }
    }
    // The parent never waits for an answer inside the rounds: it runs
    // ahead, and keeps every block until all the answers are in.
    std::vector<int*> kept;
    kept.reserve(rounds);
    for (int r = 0; r < rounds; r++) {
        int* block = nullptr;
        CHECK(cudaMallocFromPoolAsync((void**)&block, bytes, pool, s));
        fill<<<264, 256, 0, s>>>(block, n, r + 1, kFillNs);
        // TODO 2: hand the block to the child, and free it once the
        // child's GPU is done with it and its import; the host waits
        // for neither GPU.
        CHECK(cudaEventRecord(filled, s));
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: the child is gone (round %d)\n", r); return 1; }
        kept.push_back(block);
    }
    // Every round's answer, then ONE wait on freed: its latest record is
    // the child's last round's, behind every free of an import on the
    // child's stream; then every kept block is freed behind it.
    std::vector<unsigned char> answers(rounds);
    if (!recv_all(sock, answers.data(), answers.size())) { fprintf(stderr, "exporter: the child did not answer every round\n"); return 1; }
    for (int r = 0; r < rounds; r++) {
        if (answers[r] != (unsigned char)r) { fprintf(stderr, "exporter: answer %d was %d\n", r, answers[r]); return 1; }
    }
    CHECK(cudaStreamWaitEvent(s, freed, 0));
    for (size_t k = kept.size(); k-- > 0;) CHECK(cudaFreeAsync(kept[k], s));
    kept.clear();
    // The child sends what it read once its GPU work is done.
    unsigned long long* got = (unsigned long long*)calloc(2 * rounds, sizeof *got);
    if (!recv_all(sock, got, 2 * rounds * sizeof *got)) { fprintf(stderr, "exporter: the child sent no sums\n"); free(got); return 1; }
    for (int r = 0; r < rounds; r++) {
        const unsigned long long want = (unsigned long long)(r + 1) * n;
        printf("round %d: the child read %llu, then %llu (expected %llu)\n", r, got[2 * r], got[2 * r + 1], want);
        *before += got[2 * r] == want;
        *after += got[2 * r + 1] == want;
    }
    free(got);
    CHECK(cudaStreamSynchronize(s));      // the parent's one host wait
    if (filled != nullptr) CHECK(cudaEventDestroy(filled));
    if (freed != nullptr) CHECK(cudaEventDestroy(freed));
    *pool_out = pool;
    CHECK(cudaStreamDestroy(s));
    return 0;
}

// arg is the program's argument i as a number from 1 to hi, or def when
// it is not given; the course's checks run it with other inputs too.
static int arg(int argc, char** argv, int i, int def, int hi) {
    if (argc <= i) return def;
    int v = atoi(argv[i]);
    if (v < 1 || v > hi) {
        fprintf(stderr, "argument %d is %s: give a number from 1 to %d\n", i, argv[i], hi);
        exit(2);
    }
    return v;
}

// Usage: ipc_pool [ROUNDS] [MIB] (5 rounds of 8 MiB by default).
int main(int argc, char** argv) {
    const int rounds = arg(argc, argv, 1, 5, 64), mib = arg(argc, argv, 2, 8, 256);
    const int n = mib * (1 << 20) / (int)sizeof(int);
    // Fork before any CUDA call: a child cannot use the CUDA its parent
    // had started.
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) { perror("socketpair"); return 1; }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) { perror("fork"); return 1; }
    if (child == 0) {
        close(sv[0]);
        int rc = importer(sv[1], rounds, n);
        close(sv[1]);
        return rc;
    }
    close(sv[1]);
    int before = 0, after = 0;
    cudaMemPool_t pool = nullptr;
    int rc = exporter(sv[0], rounds, n, &before, &after, &pool);
    close(sv[0]);
    int status = 0;
    waitpid(child, &status, 0);
    // The pool goes once the child, which imported it, is gone.
    if (pool != nullptr && cudaMemPoolDestroy(pool) != cudaSuccess) rc = 1;
    bool childOK = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("the child %s\n", childOK ? "ended cleanly" : "failed");
    printf("%d of %d rounds: the block was filled before the child read it\n", before, rounds);
    printf("%d of %d rounds: the block stayed the child's until it read it again\n", after, rounds);
    return rc != 0 || !childOK ? 1 : 0;
}
