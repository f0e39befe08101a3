// What the doors of issue 38 take from CUDA, on a GPU: cuInit, a
// kernel, device memory, the stream-ordered pool, pinned and mapped host
// memory. Each step prints its result; the last line is "doors: ok" only
// when every step passed. Built by bench/doors/gpu.sh.
#include <cstdio>
#include <cuda_runtime.h>
#include <cstring>

__global__ void add(int *x) { x[threadIdx.x] += 1; }

static int failed = 0;
static void step(const char *what, cudaError_t e) {
  printf("%s: %s\n", what, cudaGetErrorString(e));
  if (e != cudaSuccess) failed = 1;
}

int main() {
  int n = 0;
  step("cudaGetDeviceCount", cudaGetDeviceCount(&n));
  int *d = nullptr, *h = nullptr, *m = nullptr, *dm = nullptr;
  step("cudaMalloc", cudaMalloc(&d, 256 * sizeof(int)));
  step("cudaMemset", cudaMemset(d, 0, 256 * sizeof(int)));
  add<<<1, 256>>>(d);
  step("kernel", cudaDeviceSynchronize());
  cudaStream_t s;
  step("cudaStreamCreate", cudaStreamCreate(&s));
  void *p = nullptr;
  step("cudaMallocAsync", cudaMallocAsync(&p, 64 << 20, s));
  step("cudaFreeAsync", cudaFreeAsync(p, s));
  step("cudaStreamSynchronize", cudaStreamSynchronize(s));
  // Pinned host memory: shared memory as the kernel counts it (RssShmem),
  // which RLIMIT_DATA does not bound.
  step("cudaMallocHost 256 MiB", cudaMallocHost(&h, 256 << 20));
  if (h) for (size_t i = 0; i < (256u << 20) / sizeof(int); i += 1024) h[i] = 1;
  step("cudaHostAlloc mapped", cudaHostAlloc(&m, 1 << 20, cudaHostAllocMapped));
  step("cudaHostGetDevicePointer", cudaHostGetDevicePointer(&dm, m, 0));
  step("cudaMemcpy pinned", cudaMemcpy(h, d, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "RssAnon", 7) || !strncmp(line, "RssShmem", 8) || !strncmp(line, "VmLck", 5) || !strncmp(line, "VmPeak", 6)) printf("%s", line);
  if (f) fclose(f);
  cudaFreeHost(h); cudaFreeHost(m); cudaFree(d);
  printf("doors: %s\n", failed ? "FAILED" : "ok");
  return failed;
}
