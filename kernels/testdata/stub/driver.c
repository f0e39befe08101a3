// A stand-in libcuda.so.1 for kernels/harness_test.go: the name and the
// parameters of each kernel of the course's harnesses (and of the GPU
// forgers it runs: internal/exercise/testdata/gpuforgers) that it runs, by
// the device name nvcc.c hands out as the kernel's handle.
#include <stddef.h>
#include <string.h>
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
