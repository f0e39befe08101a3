// A block pool's give-back by host function (kernels/query_test.go;
// review/blind23's block pool): each block is written on a stream, and a
// host function queued behind that work raises the block's flag; the host
// hands the block to another stream once the flag is up. Block X's
// function is queued on X's own stream: the write after it is ordered.
// Block Y's is queued on a third stream, which never used Y (a refused
// give-back that queued its function anyway): the flag says nothing of
// Y's first write, and the write after it races that one. Block Z's is a
// callback (cudaStreamAddCallback) on Z's own stream: ordered too. (The
// stand-in runtime runs a host function at once, inside the call that
// queues it.)
#include <stddef.h>
int cudaMalloc(void**, size_t); int cudaFree(void*);
int cudaStreamCreateWithFlags(void**, unsigned);
int cudaLaunchHostFunc(void*, void (*)(void*), void*);
int cudaStreamAddCallback(void*, void (*)(void*, int, void*), void*, unsigned);
int cudaMemsetAsync(void*, int, size_t, void*);
int cudaDeviceSynchronize(void);
static void raise_flag(void* flag) { __atomic_store_n((int*)flag, 1, __ATOMIC_RELEASE); }
static void raise_on(void* s, int status, void* flag) { if (status == 0) raise_flag(flag); }
int main() {
  void *s1, *s2, *s3, *arena;
  int flagX = 0, flagY = 0, flagZ = 0;
  cudaStreamCreateWithFlags(&s1, 1); cudaStreamCreateWithFlags(&s2, 1); cudaStreamCreateWithFlags(&s3, 1);
  cudaMalloc(&arena, 3072);
  char* x = (char*)arena;
  char* y = x + 1024;
  cudaMemsetAsync(x, 1, 1024, s1);
  cudaLaunchHostFunc(s1, raise_flag, &flagX);   /* behind X's write: ordered */
  cudaMemsetAsync(y, 2, 1024, s1);
  cudaLaunchHostFunc(s3, raise_flag, &flagY);   /* on a stream that never used Y: a race */
  while (!__atomic_load_n(&flagX, __ATOMIC_ACQUIRE)) {}
  cudaMemsetAsync(x, 0, 1024, s2);
  while (!__atomic_load_n(&flagY, __ATOMIC_ACQUIRE)) {}
  cudaMemsetAsync(y, 0, 1024, s2);
  char* z = y + 1024;
  cudaMemsetAsync(z, 3, 1024, s3);
  cudaStreamAddCallback(s3, raise_on, &flagZ, 0);   /* behind Z's write: ordered */
  while (!__atomic_load_n(&flagZ, __ATOMIC_ACQUIRE)) {}
  cudaMemsetAsync(z, 0, 1024, s2);
  cudaDeviceSynchronize();
  cudaFree(arena);
  return 0;
}
