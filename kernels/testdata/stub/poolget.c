// A pool's attributes asked (kernels/fail_test.go): what it holds now,
// then its release threshold twice, then a reuse policy; each get's
// result and value printed (a run may make a get fail, by the call's
// name or by its attribute's).
#include <stdio.h>
#include <stdint.h>
int cudaMemPoolCreate(void**, const void*); int cudaMemPoolGetAttribute(void*, int, void*);
int main() {
  char props[128] = {0};
  void* pool;
  cudaMemPoolCreate(&pool, props);
  uint64_t v = 7;
  int r = cudaMemPoolGetAttribute(pool, 5, &v);  /* cudaMemPoolAttrReservedMemCurrent */
  printf("reserved %d %llx\n", r, (unsigned long long)v);
  for (int i = 0; i < 2; i++) {
    v = 7;
    r = cudaMemPoolGetAttribute(pool, 4, &v);  /* cudaMemPoolAttrReleaseThreshold */
    printf("threshold %d %llx\n", r, (unsigned long long)v);
  }
  int flag = 7;
  r = cudaMemPoolGetAttribute(pool, 2, &flag);  /* cudaMemPoolReuseAllowOpportunistic */
  printf("policy %d %x\n", r, (unsigned)flag);
  return 0;
}
