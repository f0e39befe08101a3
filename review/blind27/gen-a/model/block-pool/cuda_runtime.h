#pragma once
#include <cstdlib>
#include <cstdint>
#include <set>
typedef int cudaError_t;
#define cudaSuccess 0
#define cudaErrorNotReady 600
#define cudaErrorNotYetImplemented 31
#define cudaErrorInvalidValue 1
typedef struct CUst_st* cudaStream_t;
typedef struct CUev_st* cudaEvent_t;
#define cudaEventDisableTiming 2
extern std::set<cudaEvent_t> g_live; extern std::set<cudaEvent_t> g_busy; extern int g_next;
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, int) { *e = (cudaEvent_t)(intptr_t)(++g_next); g_live.insert(*e); return 0; }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) { if (!g_live.erase(e)) abort(); return 0; }
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { if (!g_live.count(e)) abort(); if ((intptr_t)s == 9) g_busy.insert(e); return 0; }
inline cudaError_t cudaEventQuery(cudaEvent_t e) { if (!g_live.count(e)) return 400; return g_busy.count(e) ? cudaErrorNotReady : cudaSuccess; }
inline cudaError_t cudaMalloc(void** p, size_t n) { *p = aligned_alloc(256, (n + 255) / 256 * 256); return 0; }
inline cudaError_t cudaFree(void* p) { free(p); return 0; }
