// A forked child that makes its first CUDA call after the program's own
// process has ended (kernels/fail_test.go): the program's end frame, with
// its count of the children that called CUDA, is out by then, so a child
// whose start frame then went elsewhere (fork_race.cu's swap) would be in
// no count. The library ends such a child at that first call, before it
// is made (exit status 72), its mark sent ("does not follow").
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int cudaMalloc(void**, size_t);
int cudaFree(void*);
int main(void) {
  pid_t parent = getpid();
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    while (getppid() == parent) usleep(1000);
    void* d = NULL;
    for (int i = 0; i < 100; i++) cudaMalloc(&d, 1 << 20);
    printf("the child made its calls\n");
    exit(0);
  }
  cudaFree(NULL);
  printf("the program ends\n");
  return 0;
}
