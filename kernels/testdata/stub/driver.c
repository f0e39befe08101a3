// A stand-in libcuda.so.1 for kernels/harness_test.go: the name and the
// parameters of each kernel of the course's harnesses (and of the GPU
// forgers it runs: internal/exercise/testdata/gpuforgers) that it runs, by
// the device name nvcc.c hands out as the kernel's handle.
#include <stddef.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
int cuFuncGetName(const char** n, void* h) { *n = (const char*)h; return 0; }
static const struct { const char* name; size_t n; size_t p[8][2]; } kernels[] = {
  {"_Z4holdPiiixPVKiS_PVi", 7, {{0, 8}, {8, 4}, {12, 4}, {16, 8}, {24, 8}, {32, 8}, {40, 8}}},  // day068's hold
  {"_Z4fillPimi", 3, {{0, 8}, {8, 8}, {16, 4}}},                                                // day076's fill
  {"_Z3sumPKimPy", 3, {{0, 8}, {8, 8}, {16, 8}}},                                               // day076's sum
  {"_Z4fillPiiiy", 4, {{0, 8}, {8, 4}, {12, 4}, {16, 8}}},                                      // day073's fill
  {"_Z3usePKiiyPy", 4, {{0, 8}, {8, 4}, {16, 8}, {24, 8}}},                                     // day073's use
  {"_Z4fillPiii", 3, {{0, 8}, {8, 4}, {12, 4}}},                                                // day088's fill
  {"_Z5checkPKiiiPj", 4, {{0, 8}, {8, 4}, {12, 4}, {16, 8}}},                                   // day088's check
  {"_Z3sumPKiiPy", 3, {{0, 8}, {8, 4}, {16, 8}}},                                               // day071's sum (its fill is day088's)
  {"_Z3addPKyPy", 2, {{0, 8}, {8, 8}}},                                                         // day071's add
  {"_Z4onesPii", 2, {{0, 8}, {8, 4}}},                                                          // day074's ones
  {"_Z5scalePKiPiii", 4, {{0, 8}, {8, 8}, {16, 4}, {20, 4}}},                                   // day074's scale
  {"_Z4busyx", 1, {{0, 8}}},                                                                    // day074's busy
  {"_Z5scalePKfPfif", 4, {{0, 8}, {8, 8}, {16, 4}, {20, 4}}},                                   // day069's scale
  {"_Z8checksumPKfiPx", 3, {{0, 8}, {8, 4}, {16, 8}}},                                          // day069's checksum
  {"_Z8generatePfii", 3, {{0, 8}, {8, 4}, {12, 4}}},                                            // day070's generate
  {"_Z6squarePKfPfi", 3, {{0, 8}, {8, 8}, {16, 4}}},                                            // day070's square
  {"_Z3sumPKfiPf", 3, {{0, 8}, {8, 4}, {16, 8}}},                                               // day070's sum
  {"_Z4fillPfi", 2, {{0, 8}, {8, 4}}},                                                          // graph_node.cu's fill
  {"_Z5totalPKfPfi", 3, {{0, 8}, {8, 8}, {16, 4}}},                                             // graph_node.cu's total
  {"_Z4work10DevicePooliiPPcPj", 5, {{0, 24}, {24, 4}, {28, 4}, {32, 8}, {40, 8}}},            // day087's work
  {"_Z8overflow10DevicePoolPj", 2, {{0, 24}, {24, 8}}},                                         // day087's overflow
  {"_Z6gapped10DevicePoolPj", 2, {{0, 24}, {24, 8}}},                                           // day087's gapped
  {"_Z11build_lists10BlockArenaPPii", 3, {{0, 24}, {24, 8}, {32, 4}}},                        // day086's build_lists
  {"_Z13release_lists10BlockArenaPPii", 3, {{0, 24}, {24, 8}, {32, 4}}},                      // day086's release_lists
};
int cuFuncGetParamInfo(void* h, size_t i, size_t* off, size_t* size) {
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
    if (strcmp((const char*)h, kernels[k].name) == 0) {
      if (i >= kernels[k].n) return 1;
      *off = kernels[k].p[i][0];
      *size = kernels[k].p[i][1];
      return 0;
    }
  return 1;
}

/* The virtual memory calls (day072's growable buffer), as the driver API
   reference describes them: a reservation is a range of addresses (the
   hint granted when nothing reserved lies there), freed only whole, with
   the size it was reserved with, and only once nothing is mapped in it
   (CUDA_ERROR_INVALID_VALUE, 1, otherwise); an unmap undoes the mappings
   inside its range. Nothing is ever behind the addresses: no kernel runs
   and no copy is made on the stand-in. */
typedef unsigned long long CUdeviceptrS;
static struct { CUdeviceptrS p; size_t n; } reserved[64];
/* a mapping keeps its handle: cuMemRetainAllocationHandle gives it back */
static struct { CUdeviceptrS p; size_t n; unsigned long long h; } maps[256];
static CUdeviceptrS nextRange = 0x200000000000ull;
static unsigned long long vmmHandles;
int cuInit(unsigned f) { return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuGetErrorString(int e, const char** s) { *s = "an error of the stand-in driver"; return 0; }
int cuMemGetAllocationGranularity(size_t* g, const void* prop, int option) { *g = 2u << 20; return 0; }
static int overlapsReserved(CUdeviceptrS p, size_t n) {
  for (int i = 0; i < 64; i++)
    if (reserved[i].n != 0 && p < reserved[i].p + reserved[i].n && reserved[i].p < p + n) return i + 1;
  return 0;
}
int cuMemAddressReserve(CUdeviceptrS* p, size_t n, size_t align, CUdeviceptrS addr, unsigned long long f) {
  if (n == 0 || n % (2u << 20) != 0) return 1;
  CUdeviceptrS at = addr;
  if (at == 0 || overlapsReserved(at, n)) {
    size_t al = align > (2u << 20) ? align : (2u << 20);
    for (int i;;) {
      at = (nextRange + al - 1) / al * al;
      if ((i = overlapsReserved(at, n)) == 0) break;
      nextRange = reserved[i - 1].p + reserved[i - 1].n;
    }
    nextRange = at + n;
  }
  for (int i = 0; i < 64; i++)
    if (reserved[i].n == 0) { reserved[i].p = at; reserved[i].n = n; *p = at; return 0; }
  return 2;
}
int cuMemAddressFree(CUdeviceptrS p, size_t n) {
  for (int k = 0; k < 256; k++)
    if (maps[k].n != 0 && maps[k].p < p + n && p < maps[k].p + maps[k].n) return 1;
  for (int i = 0; i < 64; i++)
    if (reserved[i].n != 0 && reserved[i].p == p && reserved[i].n == n) { reserved[i].n = 0; return 0; }
  return 1;
}
int cuMemCreate(unsigned long long* h, size_t n, const void* prop, unsigned long long f) { *h = ++vmmHandles; return 0; }
int cuMemRelease(unsigned long long h) { return 0; }
int cuMemMap(CUdeviceptrS p, size_t n, size_t off, unsigned long long h, unsigned long long f) {
  if (!overlapsReserved(p, 1)) return 1;
  for (int k = 0; k < 256; k++)
    if (maps[k].n == 0) { maps[k].p = p; maps[k].n = n; maps[k].h = h; return 0; }
  return 2;
}
/* The handle of the mapping that holds addr (review/blind24's vmm-growable
   releases each handle once mapped and takes it back to move). */
int cuMemRetainAllocationHandle(unsigned long long* h, void* addr) {
  CUdeviceptrS a = (CUdeviceptrS)addr;
  for (int k = 0; k < 256; k++)
    if (maps[k].n != 0 && maps[k].p <= a && a < maps[k].p + maps[k].n) { *h = maps[k].h; return 0; }
  return 1;
}
/* A handle exported as a POSIX descriptor (a descriptor of /dev/null
   here) and imported again: a new handle, a reference of its own to the
   same memory, which a cuMemRelease gives back (round 25). */
static struct { int fd; unsigned long long h; } exportedFds[64];
int cuMemExportToShareableHandle(void* out, unsigned long long h, int type, unsigned long long f) {
  for (int i = 0; i < 64; i++)
    if (exportedFds[i].h == 0) {
      int fd = open("/dev/null", O_RDONLY);
      if (fd < 0) return 2;
      exportedFds[i].fd = fd;
      exportedFds[i].h = h;
      *(int*)out = fd;
      return 0;
    }
  return 2;
}
int cuMemImportFromShareableHandle(unsigned long long* h, void* osh, int type) {
  for (int i = 0; i < 64; i++)
    if (exportedFds[i].h != 0 && exportedFds[i].fd == (int)(uintptr_t)osh) {
      exportedFds[i].h = 0;
      *h = ++vmmHandles;
      return 0;
    }
  return 1;
}
int cuMemSetAccess(CUdeviceptrS p, size_t n, const void* desc, size_t count) { return 0; }
int cuMemUnmap(CUdeviceptrS p, size_t n) {
  int undone = 0;
  for (int k = 0; k < 256; k++)
    if (maps[k].n != 0 && maps[k].p >= p && maps[k].p + maps[k].n <= p + n) { maps[k].n = 0; undone++; }
  return undone ? 0 : 1;
}
