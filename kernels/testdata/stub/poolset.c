// A pool made and two of its reuse policies set, as strict-pool's
// constructor does (kernels/fail_test.go): a run's
// cudaMemPoolSetAttribute:N fails the Nth set, which is not made.
#include <stdio.h>
int cudaMemPoolCreate(void**, const void*);
int cudaMemPoolSetAttribute(void*, int, void*);
int main() {
  void* pool;
  char props[128] = {0};
  cudaMemPoolCreate(&pool, props);
  int off = 0;
  int a = cudaMemPoolSetAttribute(pool, 2, &off); /* cudaMemPoolReuseAllowOpportunistic */
  int b = cudaMemPoolSetAttribute(pool, 3, &off); /* cudaMemPoolReuseAllowInternalDependencies */
  printf("first %d second %d\n", a, b);
  return 0;
}
