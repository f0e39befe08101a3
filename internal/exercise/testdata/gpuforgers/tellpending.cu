// kernels/testdata/stub/tellpending.c's round 21 ways on a real GPU
// (TestGPUPendingQueriesCannotBeTold): each asks what CUDA answers
// "ready" on any GPU, however late, so "told 0" in a plain run and in a
// run with pending_queries alike. It prints which premises the driver
// gave (a destroyed stream's handle given again; a record with unknown
// flags refused): a way whose premise did not hold asks nothing.
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
}
static const long long kLong = 200000000LL;   // about 0.1 s on an H200

static void* spinOnOwnStream(void*) {
  spin<<<1, 1, 0, cudaStreamPerThread>>>(kLong);
  return nullptr;
}
static void* askOwnStream(void* told) {
  if (cudaStreamQuery(cudaStreamPerThread) != cudaSuccess) ++*(int*)told;   // no work of its own: done
  return nullptr;
}

int main() {
  // The child that opens the interprocess events is forked before any
  // CUDA call (a child forked after cannot use CUDA).
  int toChild[2], toParent[2];
  if (pipe(toChild) != 0 || pipe(toParent) != 0) return 2;
  pid_t child = fork();
  if (child == 0) {
    cudaIpcEventHandle_t h[2];
    if (read(toChild[0], h, sizeof h) != (ssize_t)sizeof h) exit(2);
    cudaEvent_t opened[2];
    int n = 0;
    for (int i = 0; i < 2; i++)
      if (cudaIpcOpenEventHandle(&opened[i], h[i]) == cudaSuccess && cudaEventQuery(opened[i]) != cudaSuccess) n++;
    if (write(toParent[1], &n, sizeof n) != (ssize_t)sizeof n) exit(2);
    for (int i = 0; i < 2; i++) cudaEventDestroy(opened[i]);
    exit(0);
  }
  int told = 0;
  // A stream destroyed with its work queued, a new one perhaps given its handle.
  cudaStream_t old, fresh;
  cudaStreamCreate(&old);
  spin<<<1, 1, 0, old>>>(kLong);
  cudaStreamDestroy(old);
  cudaStreamCreate(&fresh);
  bool reused = fresh == old;
  if (reused && cudaStreamQuery(fresh) != cudaSuccess) told++;   // a new stream, no work: done
  // The per-thread default stream: another thread's work on its own.
  pthread_t t;
  pthread_create(&t, nullptr, spinOnOwnStream, nullptr);
  pthread_join(t, nullptr);
  if (cudaStreamQuery(cudaStreamPerThread) != cudaSuccess) told++;   // this thread's: no work
  spin<<<1, 1, 0, cudaStreamPerThread>>>(1000);
  cudaStreamSynchronize(cudaStreamPerThread);
  pthread_create(&t, nullptr, spinOnOwnStream, nullptr);
  pthread_join(t, nullptr);
  if (cudaStreamQuery(cudaStreamPerThread) != cudaSuccess) told++;   // its own work waited for
  spin<<<1, 1, 0, cudaStreamPerThread>>>(kLong);
  pthread_create(&t, nullptr, askOwnStream, &told);
  pthread_join(t, nullptr);
  cudaStreamSynchronize(cudaStreamPerThread);
  // A record CUDA refuses: nothing recorded, nothing queued.
  cudaStream_t fs;
  cudaEvent_t fe;
  cudaStreamCreate(&fs);
  cudaEventCreate(&fe);
  bool refused = cudaEventRecordWithFlags(fe, fs, 0x80) != cudaSuccess;
  cudaGetLastError();
  if (refused && cudaEventQuery(fe) != cudaSuccess) told++;   // never recorded: done
  if (refused && cudaStreamQuery(fs) != cudaSuccess) told++;  // no work: done
  // Interprocess events: one recorded and waited for before its handle
  // goes to the child, one never recorded.
  cudaEvent_t shared, unused;
  cudaEventCreateWithFlags(&shared, cudaEventInterprocess | cudaEventDisableTiming);
  cudaEventCreateWithFlags(&unused, cudaEventInterprocess | cudaEventDisableTiming);
  cudaIpcEventHandle_t h[2];
  cudaIpcGetEventHandle(&h[0], shared);
  cudaIpcGetEventHandle(&h[1], unused);
  spin<<<1, 1, 0, fresh>>>(1000);
  cudaEventRecord(shared, fresh);
  cudaEventSynchronize(shared);
  if (write(toChild[1], h, sizeof h) != (ssize_t)sizeof h) return 2;
  int n = 0;
  if (read(toParent[0], &n, sizeof n) != (ssize_t)sizeof n) return 2;
  told += n;
  int status = 0;
  waitpid(child, &status, 0);
  cudaDeviceSynchronize();
  cudaEventDestroy(shared);
  cudaEventDestroy(unused);
  printf("handle reused %d, record refused %d, child exited %d\n", reused, refused, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  printf("told %d\n", told);
  return 0;
}
