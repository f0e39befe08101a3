// hold.cu MIB MS [fork]: allocates MIB MiB on the GPU, writes it with a
// kernel, holds it MS milliseconds, frees it and exits. With "fork", a
// child does all of that while the parent (which never touches CUDA)
// waits: the driver then lists the child only.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

__global__ void fill(char* p, size_t n) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = 1;
}

static int work(size_t mib, int ms) {
    char* p = nullptr;
    size_t n = mib << 20;
    if (cudaMalloc(&p, n) != cudaSuccess) return 1;
    fill<<<256, 256>>>(p, n);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    usleep(ms * 1000);
    cudaFree(p);
    printf("pid %d held %zu MiB for %d ms\n", (int)getpid(), mib, ms);
    return 0;
}

int main(int argc, char** argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], nullptr, 10) : 64;
    int ms = argc > 2 ? atoi(argv[2]) : 500;
    if (argc > 3 && strcmp(argv[3], "fork") == 0) {
        pid_t c = fork();
        if (c == 0) return work(mib, ms);
        int st = 0;
        waitpid(c, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    }
    return work(mib, ms);
}
