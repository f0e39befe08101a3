// Descriptors of shareable handles (kernels/fail_test.go): two exports and
// an import of a copy of the first; the second export's descriptor and
// the first's are closed, and /dev/null opened again (most likely at the
// first's number, naming the same file): only the import's copy is left
// open at exit.
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>
int cudaMemPoolExportToShareableHandle(void*, void*, int, unsigned);
int cudaMemPoolImportFromShareableHandle(void**, void*, int, unsigned);
int main() {
  int a = -1, b = -1;
  void* pool;
  cudaMemPoolExportToShareableHandle(&a, (void*)0x9000, 1, 0);
  cudaMemPoolExportToShareableHandle(&b, (void*)0x9000, 1, 0);
  close(b);
  int c = dup(a);
  cudaMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)c, 1, 0);
  close(a);
  int again = open("/dev/null", O_RDONLY);
  (void)again;
  return 0;
}
