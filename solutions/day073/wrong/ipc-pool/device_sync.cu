// expect: nothing waits for the whole device
// The mistake: the parent waits for the whole device before it hands a block over, where waiting for its one stream is enough.
// One pool, two processes. The parent creates a pool it can export,
// sends the pool to its child as a file descriptor over a socket pair,
// and then, each round, allocates a block from it, fills it and sends the
// block's export data; the child imports the pool once and each block,
// sums the block on the GPU, frees its import and replies with the sum;
// only then does the parent free the block.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// A slow producer: each thread waits ns nanoseconds, then writes its
// strided share of x. A reader not ordered after it sees the old contents.
__global__ void fill(int* x, int n, int v, unsigned long long ns) {
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns) {}
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] = v;
}

// Adds x into *out; each thread a strided share.
__global__ void sum(const int* x, int n, unsigned long long* out) {
    unsigned long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(out, acc);
}

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

// ---- The child: imports the pool and each block ----

static int importer(int sock, int rounds, int n) {
    CHECK(cudaSetDevice(0));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long* total = nullptr;
    CHECK(cudaMalloc(&total, sizeof *total));
    cudaMemPool_t pool = nullptr;
    // TODO 4: receive the pool's descriptor and import the pool.
    int fd = recv_fd(sock);
    if (fd < 0) { fprintf(stderr, "importer: no descriptor came\n"); return 1; }
    CHECK(cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0));
    close(fd);
    unsigned long long* got = nullptr;   // pinned: the copy into it is really asynchronous
    CHECK(cudaMallocHost(&got, sizeof *got));
    for (int r = 0; r < rounds; r++) {
        cudaMemPoolPtrExportData data;
        if (!recv_all(sock, &data, sizeof data)) { fprintf(stderr, "importer: no block came in round %d\n", r); return 1; }
        int* block = nullptr;
        // TODO 5: import the block the parent exported.
        CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
        CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
        sum<<<128, 256, 0, s>>>(block, n, total);
        CHECK(cudaMemcpyAsync(got, total, sizeof *got, cudaMemcpyDeviceToHost, s));
        // The parent frees the block as soon as it has the reply: the
        // import is freed first, and the free (and the copy into *got)
        // are done before the reply goes.
        CHECK(cudaFreeAsync(block, s));
        CHECK(cudaStreamSynchronize(s));
        if (!send_all(sock, got, sizeof *got)) return 1;
    }
    // The parent says when it has freed its last block; then nothing of
    // the pool should be in use any more, in either process.
    char done = 0;
    if (!recv_all(sock, &done, 1)) { fprintf(stderr, "importer: the parent did not finish\n"); return 1; }
    size_t open = 0;
    cudaError_t e = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &open);
    if (e == cudaSuccess) printf("child: the imported pool has %zu bytes in use at the end\n", open);
    else printf("child: the imported pool cannot say what is in use (%s)\n", cudaGetErrorString(e));
    fflush(stdout);
    CHECK(cudaFreeHost(got));
    CHECK(cudaFree(total));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

// ---- The parent: owns the pool and allocates ----

static int exporter(int sock, int rounds, int n, int* right, cudaMemPool_t* pool_out) {
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
    // TODO 1: create a pool on device 0 that can be exported as a POSIX
    // file descriptor, export it, and send the descriptor to the child.
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    int fd = -1;
    CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    if (!send_fd(sock, fd)) { fprintf(stderr, "exporter: sending the pool failed\n"); return 1; }
    close(fd);
    for (int r = 0; r < rounds; r++) {
        int* block = nullptr;
        CHECK(cudaMallocFromPoolAsync((void**)&block, bytes, pool, s));
        fill<<<264, 256, 0, s>>>(block, n, r + 1, 20 * 1000 * 1000ull);   // 20 ms
        // TODO 2: the child must not read the block before it is
        // allocated and filled: make sure of that, then send the child the
        // block's export data.
        CHECK(cudaDeviceSynchronize());
        cudaMemPoolPtrExportData data;
        CHECK(cudaMemPoolExportPointer(&data, block));
        if (!send_all(sock, &data, sizeof data)) { fprintf(stderr, "exporter: sending the block failed\n"); return 1; }
        unsigned long long got = 0;
        if (!recv_all(sock, &got, sizeof got)) { fprintf(stderr, "exporter: the child did not reply in round %d\n", r); return 1; }
        printf("round %d: the child summed %llu (expected %llu)\n", r, got, (unsigned long long)(r + 1) * n);
        *right += got == (unsigned long long)(r + 1) * n;
        // TODO 3: the child has freed its import: free the block.
        CHECK(cudaFreeAsync(block, s));
    }
    CHECK(cudaStreamSynchronize(s));
    char done = 1;
    if (!send_all(sock, &done, 1)) return 1;
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
    int right = 0;
    cudaMemPool_t pool = nullptr;
    int rc = exporter(sv[0], rounds, n, &right, &pool);
    close(sv[0]);
    int status = 0;
    waitpid(child, &status, 0);
    // The pool goes once the child, which imported it, is gone.
    if (pool != nullptr && cudaMemPoolDestroy(pool) != cudaSuccess) rc = 1;
    bool childOK = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("the child %s\n", childOK ? "ended cleanly" : "failed");
    printf("%d of %d rounds summed correctly by the child\n", right, rounds);
    return rc != 0 || !childOK ? 1 : 0;
}
