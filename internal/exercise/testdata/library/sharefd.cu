// Descriptors of a pool's shareable handle closed other ways than close,
// with the real driver (TestGPUShareableDescriptors): every export names
// /dev/nvidiactl, as the driver's own descriptors do. Each closed
// export's number is taken again by a descriptor of /dev/nvidiactl, as
// the driver takes one, so the file there is the same at exit. Closed by
// close_range, by syscall(SYS_close), by dup2 onto it and by close; a
// copy made by dup is left open (the one descriptor counted), and its
// original closed. Prints each export's number and what it names.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static cudaMemPool_t pool;

static int exported() {
    int fd = -1;
    if (cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0) != cudaSuccess) return -1;
    char path[64], to[256] = {0};
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (readlink(path, to, sizeof to - 1) < 0) to[0] = 0;
    printf("export %d -> %s\n", fd, to);
    return fd;
}

static void again(int fd) {
    int n = open("/dev/nvidiactl", O_RDWR);
    printf("reopened %d at %d\n", n, fd);
}

int main() {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
        printf("no pool\n");
        return 1;
    }
    int a = exported();
    close_range(a, a, 0);
    again(a);
    int b = exported();
    syscall(SYS_close, b);
    again(b);
    int c = exported();
    int null = open("/dev/null", O_RDONLY);
    dup2(null, c);
    close(null);
    int d = exported();
    close(d);
    again(d);
    int e = exported();
    int copy = dup(e);
    close(e);
    printf("copy %d\n", copy);
    cudaMemPoolDestroy(pool);
    return 0;
}
