// Host memory given back while page-locked (kernels/fail_test.go): four
// ranges registered with cudaHostRegister. The first is unregistered and
// then unmapped (right); the second unmapped and then unregistered (the
// unregister names memory that is gone: one); the third unmapped and
// never unregistered (one, at exit); the fourth left registered and
// mapped at exit (not counted: its memory was never given back).
#include <stddef.h>
#include <sys/mman.h>
int cudaHostRegister(void*, size_t, unsigned); int cudaHostUnregister(void*);
static void* pages(size_t n) { return mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); }
int main() {
  const size_t n = 1 << 20;
  void *a = pages(n), *b = pages(n), *c = pages(n), *d = pages(n);
  cudaHostRegister(a, n, 0);
  cudaHostRegister(b, n, 0);
  cudaHostRegister(c, n, 0);
  cudaHostRegister(d, n, 0);
  cudaHostUnregister(a);
  munmap(a, n);
  munmap(b, n);
  cudaHostUnregister(b);
  munmap(c, n);
  return 0;
}
