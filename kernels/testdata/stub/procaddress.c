// A program's own look-up of the driver's look-up (kernels/fail_test.go):
// cuGetProcAddress_v2 asked for "cuGetProcAddress" in CUDA 11's version
// gets the plain function (four arguments), and in CUDA 12's the _v2 (five):
// the hook handed must be the one of the version the driver answered
// (attack23: a CUDA 11 caller got the _v2's hook, and its call with four
// arguments wrote through a fifth it never passed).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
int cuGetProcAddress_v2(const char*, void**, int, unsigned long long, int*);
typedef int (*Plain)(const char*, void**, int, unsigned long long);
static const char* which(void* p) {
  if (p == dlsym(RTLD_DEFAULT, "cuGetProcAddress")) return "plain";
  if (p == dlsym(RTLD_DEFAULT, "cuGetProcAddress_v2")) return "v2";
  return "other";
}
int main() {
  int st = -1;
  void *p11 = NULL, *p12 = NULL, *again = NULL;
  int r = cuGetProcAddress_v2("cuGetProcAddress", &p11, 11080, 0, &st);
  r |= cuGetProcAddress_v2("cuGetProcAddress", &p12, 12000, 0, &st);
  if (r == 0 && p11 != NULL && which(p11)[0] == 'p') r |= ((Plain)p11)("cuGetProcAddress", &again, 11080, 0);
  printf("11080 %s, 12000 %s, asked again %s, result %d\n", which(p11), which(p12), which(again), r);
  return 0;
}
