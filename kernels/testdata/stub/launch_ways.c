// A kernel launched by each of the runtime's launches (kernels/fail_test.go):
// cudaLaunchKernel, cudaLaunchKernelExC (what the header's
// cudaLaunchKernelEx calls) and cudaLaunchCooperativeKernel, each once.
#include <stddef.h>
#include <stdio.h>
typedef struct { unsigned x, y, z; } dim3;
typedef struct { dim3 grid, block; size_t shared; void* stream; void* attrs; unsigned n; } LaunchConfig;
int cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, void*);
int cudaLaunchKernelExC(const LaunchConfig*, const void*, void**);
int cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t, void*);
static void kernel(void) {}
int main() {
  dim3 one = {1, 1, 1};
  LaunchConfig c = {one, one, 0, NULL, NULL, 0};
  int a = cudaLaunchKernel((const void*)kernel, one, one, NULL, 0, NULL);
  int b = cudaLaunchKernelExC(&c, (const void*)kernel, NULL);
  int d = cudaLaunchCooperativeKernel((const void*)kernel, one, one, NULL, 0, NULL);
  printf("launched %d %d %d\n", a, b, d);
  return 0;
}
