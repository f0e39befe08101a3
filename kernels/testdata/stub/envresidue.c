// A program that looks for the library's variables in its own
// environment block, as /proc/self/environ shows it (the strings on the
// initial stack, whatever environ's array says): the names of the ones
// the library took told a hidden run's mode (LESSONS_STATS_PENDING_QUERIES,
// LESSONS_STATS_SETTLED_QUERIES, LESSONS_STATS_FAIL) before, their values
// alone zeroed (attack19; kernels/query_test.go).
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main() {
  static char b[1 << 16];
  int fd = open("/proc/self/environ", O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof b);
  static const char prefix[] = "LESSONS" "_STATS_";  /* any of the library's */
  int seen = 0;
  for (ssize_t i = 0; i + 14 <= n; i++)
    if (memcmp(b + i, prefix, 14) == 0) seen++;
  printf("seen %d\n", seen);
  return 0;
}
