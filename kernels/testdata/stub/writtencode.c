// Loads a library by dlopen as $STUB_CODE says: "system" the machine's
// own libresolv, honestly; "copy" a copy of it written to $STUB_DIR under
// a name of its own, left loaded; "close" the copy unloaded before the
// end; "backdated" the copy with its mtime set back a year (utimensat);
// "deleted" the copy removed once loaded. The library must call the
// copies code written during the run, and the machine's file not.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cudaMalloc(void**, size_t);

int main() {
  const char* mode = getenv("STUB_CODE");
  const char* dir = getenv("STUB_DIR");
  if (mode == NULL) return 2;
  void* p;
  cudaMalloc(&p, 1 << 20);
  void* sys = dlopen("libresolv.so.2", RTLD_NOW);
  if (sys == NULL) return 3;
  if (strcmp(mode, "system") == 0) {
    printf("loaded\n");
    return 0;
  }
  struct link_map* lm = NULL;
  if (dir == NULL || dlinfo(sys, RTLD_DI_LINKMAP, &lm) != 0) return 4;
  char path[4096];
  snprintf(path, sizeof path, "%s/libnvprivate.so", dir);
  FILE* in = fopen(lm->l_name, "rb");
  FILE* out = fopen(path, "wb");
  if (in == NULL || out == NULL) return 5;
  char buf[1 << 16];
  for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;) fwrite(buf, 1, n, out);
  fclose(in);
  fclose(out);
  if (strcmp(mode, "backdated") == 0) {
    struct timespec ts[2] = {{time(NULL) - 365 * 86400, 0}, {time(NULL) - 365 * 86400, 0}};
    if (utimensat(AT_FDCWD, path, ts, 0) != 0) return 6;
  }
  void* own = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (own == NULL) return 7;
  if (strcmp(mode, "deleted") == 0) unlink(path);
  if (strcmp(mode, "close") == 0) dlclose(own);
  printf("loaded\n");
  return 0;
}
