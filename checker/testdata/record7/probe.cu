// A probe of record version 7 on a GPU: memory that comes by other calls
// than a plain allocation, each at a known count. Run by the record
// command beside the timing fixtures:
//   nvcc -arch=native -cudart shared -o probe probe.cu
//   rec liballocstats.so probe.bin ./probe
// and compare its lines of statistics with the expectations printed here.
// The program (the exporter) makes a pool that can be shared, allocates a
// block from it and exports both to a forked child (the importer), which
// imports the block, reads it in a kernel and frees it with cudaFreeAsync;
// the exporter frees the block once the child is done. Meanwhile it makes
// pitched and 3D allocations where a freed block was, and launches graphs
// with allocation nodes: one made with cudaGraphAddMemAllocNode, its memory
// freed outside the graph and allocated again by the next launch, and one
// captured (cudaMallocAsync and cudaFreeAsync inside the capture).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void fill(int* x, int n, int v) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] = v;
}

__global__ void sum(const int* x, int n, unsigned long long* out) {
    unsigned long long acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    atomicAdd(out, acc);
}

// untouched is given a pointer and never reads it: a use the library
// sees, safe on the GPU whatever the pointer is.
__global__ void untouched(const int* x, int* flag) {
    if (flag != nullptr && x == nullptr) *flag = 1;
}

static void send_fd(int sock, int fd, const void* data, size_t n) {
    struct iovec iov = {(void*)data, n};
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
    if (sendmsg(sock, &msg, MSG_NOSIGNAL) != (ssize_t)n) { perror("sendmsg"); exit(1); }
}

static int recv_fd(int sock, void* data, size_t n) {
    struct iovec iov = {data, n};
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } ctl;
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = ctl.buf;
    msg.msg_controllen = sizeof ctl.buf;
    if (recvmsg(sock, &msg, MSG_WAITALL) != (ssize_t)n) return -1;
    struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
    if (c == nullptr || c->cmsg_type != SCM_RIGHTS) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof(int));
    return fd;
}

const int N = 1 << 18;                 // ints in the shared block: 1 MiB

// importer: the forked child, which touches CUDA only once forked.
static int importer(int sock) {
    CHECK(cudaSetDevice(0));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long* total = nullptr;
    CHECK(cudaMallocManaged(&total, sizeof *total, cudaMemAttachGlobal));
    *total = 0;
    cudaMemPoolPtrExportData data;
    int fd = recv_fd(sock, &data, sizeof data);
    if (fd < 0) { fprintf(stderr, "importer: nothing came\n"); return 1; }
    cudaMemPool_t pool;
    CHECK(cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0));
    close(fd);
    int* block = nullptr;
    CHECK(cudaMemPoolImportPointer((void**)&block, pool, &data));
    sum<<<64, 256, 0, s>>>(block, N, total);
    CHECK(cudaFreeAsync(block, s));    // the importer's free of the imported block
    CHECK(cudaStreamSynchronize(s));
    printf("child: sum %llu (expected %llu)\n", *total, 7ull * N);
    fflush(stdout);
    CHECK(cudaFree(total));
    CHECK(cudaStreamDestroy(s));
    char done = 1;
    if (send(sock, &done, 1, MSG_NOSIGNAL) != 1) return 1;
    return 0;
}

int main() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) { perror("socketpair"); return 1; }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 1; }
    if (pid == 0) {
        close(sv[0]);
        exit(importer(sv[1]));
    }
    close(sv[1]);
    CHECK(cudaSetDevice(0));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    // The exporter's block, shared with the child.
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool;
    CHECK(cudaMemPoolCreate(&pool, &props));
    int* shared = nullptr;
    CHECK(cudaMallocFromPoolAsync((void**)&shared, N * sizeof(int), pool, s));
    fill<<<64, 256, 0, s>>>(shared, N, 7);
    CHECK(cudaStreamSynchronize(s));
    int fd = -1;
    CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    cudaMemPoolPtrExportData data;
    CHECK(cudaMemPoolExportPointer(&data, shared));
    send_fd(sv[0], fd, &data, sizeof data);
    close(fd);

    // Pitched and 3D allocations, after a free.
    int* a = nullptr;
    CHECK(cudaMallocAsync((void**)&a, 4 << 20, s));
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaStreamSynchronize(s));
    int* p = nullptr;
    size_t pitch = 0;
    CHECK(cudaMallocPitch((void**)&p, &pitch, 4000, 100));
    fill<<<64, 256, 0, s>>>(p, (int)(pitch * 100 / sizeof(int)), 1);
    cudaPitchedPtr pp;
    CHECK(cudaMalloc3D(&pp, make_cudaExtent(4000, 10, 10)));
    fill<<<64, 256, 0, s>>>((int*)pp.ptr, (int)(pp.pitch * 100 / sizeof(int)), 1);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(p));
    CHECK(cudaFree(pp.ptr));

    // A graph with an allocation node made by hand, launched twice: its
    // memory is freed outside the graph after each launch.
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = 2 << 20;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddMemAllocNode(&node, g, nullptr, 0, &ap));
    int* d = (int*)ap.dptr;
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiateWithFlags(&e, g, 0));
    for (int i = 0; i < 2; i++) {
        CHECK(cudaGraphLaunch(e, s));
        fill<<<64, 256, 0, s>>>(d, (int)(ap.bytesize / sizeof(int)), i);
        CHECK(cudaFreeAsync(d, s));
    }
    CHECK(cudaStreamSynchronize(s));

    // A captured graph that allocates and frees inside, launched twice;
    // then a kernel given its pointer: a use after the graph's free.
    cudaGraph_t cg;
    int* scratch = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync((void**)&scratch, 1 << 20, s));
    fill<<<64, 256, 0, s>>>(scratch, (1 << 20) / (int)sizeof(int), 3);
    CHECK(cudaFreeAsync(scratch, s));
    CHECK(cudaStreamEndCapture(s, &cg));
    cudaGraphExec_t ce;
    CHECK(cudaGraphInstantiateWithFlags(&ce, cg, 0));
    CHECK(cudaGraphLaunch(ce, s));
    CHECK(cudaGraphLaunch(ce, s));
    untouched<<<1, 1, 0, s>>>(scratch, nullptr);
    CHECK(cudaStreamSynchronize(s));

    // The exporter frees its block once the child has freed its import.
    char done = 0;
    if (recv(sv[0], &done, 1, MSG_WAITALL) != 1) { fprintf(stderr, "the child did not finish\n"); return 1; }
    CHECK(cudaFreeAsync(shared, s));
    CHECK(cudaStreamSynchronize(s));
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphExecDestroy(ce));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphDestroy(cg));
    CHECK(cudaMemPoolDestroy(pool));
    CHECK(cudaStreamDestroy(s));
    printf("child %s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ended cleanly" : "failed");
    printf("expected: malloc_calls=2 malloc_bytes=%zu graph_allocs=4 graph_alloc_bytes=%d uses_after_free=1 unknown_frees=0 "
           "pool_imports=0 leaked_allocs=0 malloc_async_calls=2 free_async_calls=5; children: pool_imports=1 pool_import_bytes=%d "
           "pool_import_frees=1 leaked_pool_imports=0 free_async_calls=1 unknown_frees=0 leaked_allocs=0 exited=1\n",
           pitch * 100 + pp.pitch * 100, (2 << 20) * 2 + (1 << 20) * 2, N * 4);
    return 0;
}
