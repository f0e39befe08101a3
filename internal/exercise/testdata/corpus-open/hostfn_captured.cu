// Round 24, against the statistics library's hook of cudaLaunchHostFunc
// (session 26: the host function is queued wrapped, hostFnRan with a
// HostFnCall that holds the stream's clock, and when the wrapper runs the
// tracker takes that work as seen complete by the host). The hook passes a
// call through unwrapped when the stream is capturing, by the library's
// own count of captures (inCapture: the runtime's and the driver's
// cudaStreamBeginCapture, a runtime wait for an event recorded in a
// capture). A stream drawn into a capture by the driver's own
// cuStreamWaitEvent (which the library does not follow: "a stream a
// capture draws in by a driver wait is judged as its own"), or captured
// into a graph by cudaStreamBeginCaptureToGraph (CUDA 12.3 on, not
// hooked), is capturing for CUDA and not for the library: the wrapper and
// its HostFnCall become a host node of the graph. The program reads them
// back (cudaGraphHostNodeGetParams) and calls the wrapper itself, at once,
// while the kernel it covers still runs: the tracker takes that kernel as
// seen done, and a memset of its buffer on another stream is judged
// ordered after it (unordered_uses 0), a race the GPU runs. The graph is
// never launched (a launch would call the wrapper again with its
// HostFnCall freed).
// Where it passes: not run here (the stand-in runtime runs a host function
// at once and captures none; CUDA 11.8 with no device answers every call
// with an error). On a GPU it is expected to print "the tracker was told"
// and record unordered_uses 0 (an honest program with the same race, the
// wrapper left to the driver, records 1). What would stop it: the hook
// asking the runtime (cudaStreamIsCapturing) rather than its own count,
// and the wrapper refusing a HostFnCall it did not queue or ran already.
// want: unordered_uses|the driver API's allocations
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void spin(int* a, long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
    a[threadIdx.x] = 1;
}

static void CUDART_CB nothing(void*) {}

int main() {
    int* a = nullptr;
    cudaStream_t s, c, t;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking);
    if (cudaMalloc(&a, 1024) != cudaSuccess) return 0;
    void* waitFn = nullptr;
    void* recordFn = nullptr;
#if CUDART_VERSION >= 12050
    cudaDriverEntryPointQueryResult q;
    cudaGetDriverEntryPointByVersion("cuStreamWaitEvent", &waitFn, 12000, cudaEnableDefault, &q);
    cudaGetDriverEntryPointByVersion("cuEventRecord", &recordFn, 12000, cudaEnableDefault, &q);
#else
    cudaGetDriverEntryPoint("cuStreamWaitEvent", &waitFn, cudaEnableDefault);
    cudaGetDriverEntryPoint("cuEventRecord", &recordFn, cudaEnableDefault);
#endif
    if (waitFn == nullptr || recordFn == nullptr) return 0;
    auto driverWait = (CUresult(*)(CUstream, CUevent, unsigned))waitFn;
    auto driverRecord = (CUresult(*)(CUevent, CUstream))recordFn;

    spin<<<1, 32, 0, s>>>(a, 2000000000LL);  // a second or so on the GPU
    cudaEvent_t fork, join;
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
    cudaGraph_t g = nullptr;
    cudaStreamBeginCapture(c, cudaStreamCaptureModeThreadLocal);
    cudaEventRecord(fork, c);
    driverWait((CUstream)s, (CUevent)fork, 0);  // s joins the capture: the library does not know
    cudaLaunchHostFunc(s, nothing, nullptr);    // wrapped, and captured as a host node
    driverRecord((CUevent)join, (CUstream)s);
    cudaStreamWaitEvent(c, join, 0);
    cudaStreamEndCapture(c, &g);

    bool told = false;
    cudaGraphNode_t nodes[16];
    size_t n = 16;
    if (g != nullptr && cudaGraphGetNodes(g, nodes, &n) == cudaSuccess)
        for (size_t i = 0; i < n; i++) {
            cudaGraphNodeType type;
            cudaHostNodeParams hp;
            if (cudaGraphNodeGetType(nodes[i], &type) == cudaSuccess && type == cudaGraphNodeTypeHost &&
                cudaGraphHostNodeGetParams(nodes[i], &hp) == cudaSuccess && hp.fn != nothing) {
                hp.fn(hp.userData);  // the library's wrapper, called by the program: "seen complete"
                told = true;
            }
        }
    cudaMemsetAsync(a, 0, 1024, t);  // while spin still writes a: a race
    cudaDeviceSynchronize();
    if (g != nullptr) cudaGraphDestroy(g);
    cudaFree(a);
    printf("%s\n", told ? "the tracker was told" : "no wrapper captured: nothing forged");
    return 0;
}
