#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
typedef int cudaError_t;
#define cudaSuccess 0
typedef struct CUst_st* cudaStream_t;
typedef struct CUev_st* cudaEvent_t;
typedef struct { int x; } cudaMemPool_t_;
typedef void* cudaMemPool_t;
#define cudaEventDisableTiming 2
inline const char* cudaGetErrorString(int) { return "err"; }
extern int g_events, g_waits, g_records;
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, int) { *e = (cudaEvent_t)(intptr_t)(++g_events + 1000); return 0; }
inline cudaError_t cudaEventDestroy(cudaEvent_t) { g_events--; return 0; }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { g_records++; return 0; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t e, unsigned) { if ((intptr_t)e < 1000) abort(); g_waits++; return 0; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return 0; }
