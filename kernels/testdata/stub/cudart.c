// A stand-in for libcudart on a machine without a GPU (kernels/timeline_test.go):
// every call succeeds; allocations hand out fake addresses (never through
// another exported name, which the library would count), streams and
// events fake handles. Its pool reserves in steps of 8 MiB and gives
// memory back at a host wait or a trim (a release threshold of 0); its
// events' elapsed times grow with their handles, so the kernels it
// "runs" have a start and an end.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <driver_types.h>  /* cudaMemAllocNodeParams' layout, for the graphs below */
static uintptr_t next = 0x10000000, handles = 0x1000;
static size_t used, reserved;
static struct { uintptr_t p; size_t n; } blocks[64];
static size_t up(size_t n) { return (n + (8u << 20) - 1) & ~(size_t)((8u << 20) - 1); }
static int take(void** p, size_t n) {
  *p = (void*)next;
  for (int i = 0; i < 64; i++) if (blocks[i].p == 0) { blocks[i].p = next; blocks[i].n = n; break; }
  next += (n + 0xfff) & ~0xfffUL;
  used += n;
  if (up(used) > reserved) reserved = up(used);
  return 0;
}
static int give(void* p) {
  for (int i = 0; i < 64; i++) if (blocks[i].p == (uintptr_t)p) { used -= blocks[i].n; blocks[i].p = 0; }
  return 0;
}
static int release(void) { reserved = up(used); return 0; }
// inCall, when the program sets it, runs inside cudaMalloc: what another
// of the program's threads could do while the call is made, between the
// library's look at the channel and its write (fork_race.c).
void (*stubInCall)(void);
int cudaMalloc(void** p, size_t n) {
  if (stubInCall != NULL) stubInCall();
  return take(p, n);
}
static int captured(void* s);
static void capturedAlloc(void* p, size_t n, void* s);
static void capturedFree(void* p, void* s);
static void capturedMemset(void* d, int v, size_t n, void* s);
int cudaMallocAsync(void** p, size_t n, void* s) { take(p, n); if (captured(s)) capturedAlloc(*p, n, s); return 0; }
int cudaFree(void* p) { return give(p); }
#ifndef STUB_KERNELS  /* nvcc.c's give the harnesses host memory they can write */
int cudaMallocHost(void** p, size_t n) { return take(p, n); }
int cudaHostAlloc(void** p, size_t n, unsigned f) { return take(p, n); }  /* nvcc.c's hands out real memory */
#endif
int cudaFreeHost(void* p) { return give(p); }
int cudaFreeAsync(void* p, void* s) { if (captured(s)) { capturedFree(p, s); return 0; } return give(p); }
int cudaMemsetAsync(void* d, int v, size_t n, void* s) { if (captured(s)) capturedMemset(d, v, n, s); return 0; }
/* With $STUB_STREAM_REUSE a stream made takes the handle of the last one
   destroyed, as the runtime may hand a new stream a freed one's address
   (tellpending.c). */
static void* goneStreams[64];
static int goneStreamsN;
static void* newStream(void) {
  if (goneStreamsN > 0 && getenv("STUB_STREAM_REUSE") != NULL) return goneStreams[--goneStreamsN];
  return (void*)(handles++);
}
int cudaStreamCreate(void** s) { *s = newStream(); return 0; }
int cudaStreamCreateWithFlags(void** s, unsigned f) { *s = newStream(); return 0; }
int cudaStreamDestroy(void* s) { if (goneStreamsN < 64) goneStreams[goneStreamsN++] = s; return 0; }
int cudaEventCreate(void** e) { *e = (void*)(handles++); return 0; }
/* With $STUB_EVENT_REUSE an event made takes the handle of the last one
   destroyed, as the driver hands a new interprocess event the handle of
   one destroyed before (ipcrecord.c's STUB_FRESH). */
static void* gone[64];
static int goneN;
int cudaEventCreateWithFlags(void** e, unsigned f) {
  if (goneN > 0 && getenv("STUB_EVENT_REUSE") != NULL) { *e = gone[--goneN]; return 0; }
  *e = (void*)(handles++);
  return 0;
}
int cudaEventDestroy(void* e) { if (goneN < 64) gone[goneN++] = e; return 0; }
// With STUB_RAISE_IN_POOL set, the first call raises SIGUSR1: the library
// asks for the device's pool in its own call into CUDA, so the program's
// handler runs inside it (kernels/fail_test.go, handler.c).
int cudaDeviceGetMemPool(void** pool, int dev) {
  static int raised;
  if (!raised && getenv("STUB_RAISE_IN_POOL")) { raised = 1; raise(SIGUSR1); }
  *pool = (void*)0x9000;
  return 0;
}
/* The default pool is the current one (the stand-in keeps no other), and
   a pool made current changes nothing the stand-in answers
   (kernels/public_test.go). */
int cudaDeviceGetDefaultMemPool(void** pool, int dev) { *pool = (void*)0x9000; return 0; }
int cudaDeviceSetMemPool(int dev, void* pool) { return 0; }
int cudaDeviceGetAttribute(int* v, int attr, int dev) { *v = 1; return 0; }
int cudaDriverGetVersion(int* v) { *v = 13000; return 0; }
int cudaMemPoolCreate(void** pool, const void* props) { *pool = (void*)(handles++); return 0; }
int cudaMemPoolDestroy(void* pool) { return 0; }
static int poolAttribute(int attr, void* v) {
  if (attr >= 1 && attr <= 3) { *(int*)v = 0; return 0; }  /* the reuse policies: int attributes */
  *(uint64_t*)v = attr == 5 || attr == 6 ? reserved : attr == 7 || attr == 8 ? used : 0;
  return 0;
}
int cudaMemPoolGetAttribute(void* pool, int attr, void* v) { return poolAttribute(attr, v); }
// The driver's, which the library asks for the pool's figures as it goes
// (the same attributes, numbered alike).
int cuMemPoolGetAttribute(void* pool, int attr, void* v) { return poolAttribute(attr, v); }
int cudaEventElapsedTime(float* ms, void* a, void* b) {
  *ms = (uintptr_t)b > (uintptr_t)a ? 0.004f * (float)((uintptr_t)b - (uintptr_t)a) : 0;
  return 0;
}
static int settled;  /* the host waited since the last record (STUB_QUERY_PENDING, below) */
/* $STUB_SYNC_ERROR: what cudaDeviceSynchronize returns (a kernel's fault, 700). */
int cudaDeviceSynchronize(void) { const char* e = getenv("STUB_SYNC_ERROR"); release(); return e ? atoi(e) : 0; }
int cudaStreamSynchronize(void* s) { settled = 1; return release(); }
/* The per-thread default stream's twin, as the real runtime exports it. */
int cudaStreamSynchronize_ptsz(void* s) { settled = 1; return release(); }
int cudaMemPoolTrimTo(void* pool, size_t keep) { return release(); }
/* A pool exported as a POSIX descriptor (handle type 1): a new descriptor of /dev/null. */
int cudaMemPoolExportToShareableHandle(void* h, void* pool, int t, unsigned f) { *(int*)h = open("/dev/null", O_RDONLY); return *(int*)h < 0; }
int cudaMemPoolImportFromShareableHandle(void** pool, void* h, int t, unsigned f) { *pool = (void*)0x9100; return 0; }
#define OK(name) int name() { return 0; }
/* Flags other than cudaEventRecordDefault and cudaEventRecordExternal are
   refused (cudaErrorInvalidValue): nothing is recorded (tellpending.c). */
int cudaEventRecordWithFlags(void* e, void* s, unsigned f) { return f > 1 ? 1 : 0; }
OK(cudaGraphUpload)
OK(cudaMemcpyAsync) OK(cudaMemcpy2DAsync) OK(cudaMemset2DAsync) OK(cudaMemcpy) OK(cudaMemset) OK(cudaGetDevice) OK(cudaSetDevice)
OK(cudaMemPoolSetAttribute) OK(cudaHostRegister) OK(cudaHostUnregister)
OK(cudaThreadExchangeStreamCaptureMode)
#ifndef STUB_KERNELS  /* nvcc.c keeps a launch's error */
OK(cudaGetLastError) OK(cudaPeekAtLastError)
#endif
OK(__cudaLaunchKernel) OK(cudaLaunchKernelExC) OK(cudaLaunchCooperativeKernel) OK(cudaDeviceReset) OK(cudaDeviceGraphMemTrim)
#ifndef STUB_KERNELS  /* nvcc.c knows the program's kernels, and captures their launches */
int cudaGetFuncBySymbol(void** f, const void* s) { return 1; }
OK(cudaLaunchKernel)
#endif
/* A host function runs at once: every stream here is already done. On a
   captured stream it is a host node of the graph instead (below). */
static int capturedHost(void* s, void (*f)(void*), void* d);
int cudaLaunchHostFunc(void* s, void (*f)(void*), void* d) { if (capturedHost(s, f, d)) return 0; f(d); return 0; }
int cudaStreamAddCallback(void* s, void (*f)(void*, int, void*), void* d, unsigned flags) { if (flags != 0) return 1; f(s, 0, d); return 0; }
static size_t heap = 8 << 20;  /* the device heap: cudaLimitMallocHeapSize is 2 */
int cudaDeviceSetLimit(int l, size_t v) { if (l == 2) heap = v; return 0; }
int cudaDeviceGetLimit(size_t* v, int l) { *v = l == 2 ? heap : 0; return 0; }
/* Export data name the block and the export (a serial), as the runtime's are distinct for each block. */
int cudaMemPoolExportPointer(void* data, void* p) {
  static uint64_t serial;
  serial++;
  memset(data, 0, 64);
  memcpy(data, &p, sizeof p);
  memcpy((char*)data + sizeof p, &serial, sizeof serial);
  return 0;
}
int cudaMemPoolImportPointer(void** p, void* pool, void* data) { return take(p, 1 << 20); }
typedef struct { char reserved[64]; } IpcEventHandle;
int cudaIpcOpenEventHandle(void** e, IpcEventHandle h) { *e = (void*)(handles++); return 0; }
int cudaIpcGetEventHandle(IpcEventHandle* h, void* e) { memset(h, 0, sizeof *h); memcpy(h->reserved, &e, sizeof e); return 0; }  /* one handle an event */
/* Graphs: an executable graph is a fake handle. Kernel, memset and 1D
   memcpy nodes added by hand are kept in one table (a node is its slot's
   address); a kernel node keeps the pointer to its arguments it was given
   (the programs that add them keep those alive). */
int cudaGraphCreate(void** g, unsigned f) { *g = (void*)(handles++); return 0; }
int cudaGraphInstantiate(void** e, void* g, void* a, void* b, size_t c) { *e = (void*)(handles++); return 0; }
int cudaGraphInstantiateWithFlags(void** e, void* g, unsigned long long f) { *e = (void*)(handles++); return 0; }
typedef struct { unsigned x, y, z; } StubDim3;
typedef struct { void* func; StubDim3 grid, block; unsigned shared; void** params; void** extra; } StubKernelNode;
typedef struct { void* dst; size_t pitch; unsigned value, elementSize; size_t width, height; } StubMemsetNode;
typedef struct { size_t x, y, z; } StubPos;
typedef struct { void* ptr; size_t pitch, xsize, ysize; } StubPitched;
typedef struct { void* srcArray; StubPos srcPos; StubPitched srcPtr; void* dstArray; StubPos dstPos; StubPitched dstPtr; StubPos extent; int kind; } StubCopyNode;
static struct StubNode {
  void* graph; int type; StubKernelNode k; StubMemsetNode m; StubCopyNode c;
  void* dptr; size_t bytes;               /* an allocation or free node's */
  void* event;                            /* an event wait or record node's */
  void* child;                            /* a child graph node's graph (a copy) */
  char argData[64]; void* args[8];        /* a captured launch's arguments, copied */
  void (*hostFn)(void*); void* hostData;  /* a host node's function and its data */
  struct StubNode* deps[4]; int ndeps;    /* a captured node's dependencies */
} gnodes[64];
static struct StubNode* addNode(void** node, void* g, int type) {
  for (int i = 0; i < 64; i++)
    if (gnodes[i].graph == 0) { gnodes[i].graph = g; gnodes[i].type = type; gnodes[i].ndeps = 0; *node = &gnodes[i]; return &gnodes[i]; }
  return 0;
}
int cudaGraphAddKernelNode(void** node, void* g, void* deps, size_t n, const StubKernelNode* p) { addNode(node, g, 0)->k = *p; return 0; }
int cudaGraphAddMemsetNode(void** node, void* g, void* deps, size_t n, const StubMemsetNode* p) { addNode(node, g, 2)->m = *p; return 0; }
int cudaGraphAddMemcpyNode1D(void** node, void* g, void* deps, size_t n, void* d, const void* s, size_t count, int kind) {
  StubCopyNode c = {0};
  c.srcPtr.ptr = (void*)s; c.srcPtr.pitch = c.srcPtr.xsize = count; c.srcPtr.ysize = 1;
  c.dstPtr.ptr = d; c.dstPtr.pitch = c.dstPtr.xsize = count; c.dstPtr.ysize = 1;
  c.extent.x = count; c.extent.y = c.extent.z = 1; c.kind = kind;
  addNode(node, g, 1)->c = c;
  return 0;
}
int cudaGraphAddEventWaitNode(void** node, void* g, void* deps, size_t n, void* e) { addNode(node, g, 6)->event = e; return 0; }
int cudaGraphAddEventRecordNode(void** node, void* g, void* deps, size_t n, void* e) { addNode(node, g, 7)->event = e; return 0; }
int cudaGraphEventWaitNodeGetEvent(struct StubNode* node, void** e) { *e = node->event; return node->type != 6; }
int cudaGraphEventRecordNodeGetEvent(struct StubNode* node, void** e) { *e = node->event; return node->type != 7; }
/* A copy of graph g's nodes, in their order, into a new graph (a node
   of a child graph is not copied again: the copy shares its graph). */
static void* copyGraph(void* g) {
  void* copy = (void*)(handles++);
  struct StubNode* to[64] = {0};
  for (int i = 0; i < 64; i++)
    if (gnodes[i].graph == g && g != 0) {
      void* node;
      struct StubNode* x = addNode(&node, copy, gnodes[i].type);
      if (x != 0) { *x = gnodes[i]; x->graph = copy; to[i] = x; }
    }
  for (int i = 0; i < 64; i++)
    for (int d = 0; to[i] != 0 && d < to[i]->ndeps; d++) to[i]->deps[d] = to[to[i]->deps[d] - gnodes];
  return copy;
}
int cudaGraphClone(void** out, void* g) { *out = copyGraph(g); return 0; }
int cudaGraphAddChildGraphNode(void** node, void* g, void* deps, size_t n, void* child) {
  void* copy = copyGraph(child);
  addNode(node, g, 4)->child = copy;
  return 0;
}
int cudaGraphChildGraphNodeGetGraph(struct StubNode* node, void** g) { *g = node->child; return node->type != 4; }
/* Copies are not told from their originals here: the library matches
   them node by node (the real runtime answers for a clone). */
int cudaGraphNodeFindInClone(void** out, void* node, void* g) { return 1; }
int cudaGraphGetNodes(void* g, void** nodes, size_t* n) {
  size_t k = 0;
  for (int i = 0; i < 64; i++)
    if (gnodes[i].graph == g && g != 0) { if (nodes != 0 && k < *n) nodes[k] = &gnodes[i]; k++; }
  *n = k;
  return 0;
}
int cudaGraphNodeGetType(struct StubNode* node, int* t) { *t = node->type; return 0; }
int cudaGraphKernelNodeGetParams(struct StubNode* node, StubKernelNode* p) { *p = node->k; return node->type != 0; }
int cudaGraphMemsetNodeGetParams(struct StubNode* node, StubMemsetNode* p) { *p = node->m; return node->type != 2; }
int cudaGraphMemcpyNodeGetParams(struct StubNode* node, StubCopyNode* p) { *p = node->c; return node->type != 1; }
int cudaGraphExecKernelNodeSetParams(void* e, struct StubNode* node, const StubKernelNode* p) { return 0; }
OK(cudaGraphExecMemsetNodeSetParams) OK(cudaGraphExecMemcpyNodeSetParams) OK(cudaGraphExecMemcpyNodeSetParams1D) OK(cudaGraphExecUpdate)
int cudaGraphDestroy(void* g) {
  for (int i = 0; i < 64; i++) if (gnodes[i].graph == g) gnodes[i].graph = 0;
  return 0;
}
OK(cudaGraphLaunch) OK(cudaGraphExecDestroy) OK(cudaDeviceGetGraphMemAttribute)
int cudaGraphNodeGetDependencies(struct StubNode* node, void** deps, size_t* n) {
  size_t k = *n;
  if (deps != 0) for (int i = 0; i < node->ndeps && (size_t)i < k; i++) deps[i] = node->deps[i];
  *n = node->ndeps;
  return 0;
}
/* The nodes that depend on node, and a graph's nodes that depend on
   none (review/blind23's and blind8's graph-alloc find produce's kernel
   node so). */
int cudaGraphNodeGetDependentNodes(struct StubNode* node, void** out, size_t* n) {
  size_t k = 0;
  for (int i = 0; i < 64; i++)
    for (int d = 0; gnodes[i].graph != 0 && d < gnodes[i].ndeps; d++)
      if (gnodes[i].deps[d] == node) { if (out != 0 && k < *n) out[k] = &gnodes[i]; k++; break; }
  *n = k;
  return 0;
}
int cudaGraphGetRootNodes(void* g, void** out, size_t* n) {
  size_t k = 0;
  for (int i = 0; i < 64; i++)
    if (gnodes[i].graph == g && g != 0 && gnodes[i].ndeps == 0) { if (out != 0 && k < *n) out[k] = &gnodes[i]; k++; }
  *n = k;
  return 0;
}
/* A graph's edges, each a dependency (CUDA 11's form, the one nvcc 11.8
   builds against: review/blind24's graph-alloc finds the node after
   produce's allocation node so). */
int cudaGraphGetEdges(void* g, void** from, void** to, size_t* n) {
  size_t k = 0;
  for (int i = 0; i < 64; i++)
    for (int d = 0; gnodes[i].graph == g && g != 0 && d < gnodes[i].ndeps; d++) {
      if (from != 0 && to != 0 && k < *n) { from[k] = gnodes[i].deps[d]; to[k] = &gnodes[i]; }
      k++;
    }
  *n = k;
  return 0;
}
int cudaGraphMemAllocNodeGetParams(struct StubNode* node, struct cudaMemAllocNodeParams* p) {
  p->bytesize = node->bytes; p->dptr = node->dptr; return node->type != 10;
}
int cudaGraphMemFreeNodeGetParams(struct StubNode* node, void** p) { *p = node->dptr; return node->type != 11; }
/* Stream capture: the stream begun and those that waited for an event
   recorded in the capture capture into one graph; launches (nvcc.c),
   stream-ordered allocations, frees and memsets queued on them become
   its nodes. A node depends on the node its stream captured before it,
   and on the node an event recorded in the capture stood at when the
   stream waited for it (as CUDA's capture makes its edges). */
static void* capGraph;
static void* capStreams[8];
static struct StubNode* capLast[8];      /* each captured stream's last node */
static struct StubNode* capPend[8][2];   /* nodes its waits joined since */
static void* capEvents[16];
static struct StubNode* capEventNode[16];
static int capN, capEN;
static int captured(void* s) {
  for (int i = 0; capGraph != 0 && i < capN; i++) if (capStreams[i] == s) return 1;
  return 0;
}
static int capIndex(void* s) {
  for (int i = 0; capGraph != 0 && i < capN; i++) if (capStreams[i] == s) return i;
  return -1;
}
static void capDep(struct StubNode* x, struct StubNode* d) {
  if (x == 0 || d == 0 || x->ndeps >= 4) return;
  for (int i = 0; i < x->ndeps; i++) if (x->deps[i] == d) return;
  x->deps[x->ndeps++] = d;
}
/* capLink makes x the next node of captured stream s. */
static void capLink(struct StubNode* x, void* s) {
  int i = capIndex(s);
  if (i < 0 || x == 0) return;
  capDep(x, capLast[i]);
  for (int j = 0; j < 2; j++) { capDep(x, capPend[i][j]); capPend[i][j] = 0; }
  capLast[i] = x;
}
static void beginCapture(void* s, void* g) {
  capGraph = g; capStreams[0] = s; capN = 1; capEN = 0;
  memset(capLast, 0, sizeof capLast); memset(capPend, 0, sizeof capPend);
}
int cudaStreamBeginCapture(void* s, int mode) { beginCapture(s, (void*)(handles++)); return 0; }
int cudaStreamEndCapture(void* s, void** g) { *g = capGraph; capGraph = 0; capN = capEN = 0; return 0; }
/* CUDA 12.3's capture into a graph the program made (g, no dependencies
   here): the library does not hook it, so for it s does not capture. */
int cudaStreamBeginCaptureToGraph(void* s, void* g, const void* deps, const void* data, size_t n, int mode) {
  beginCapture(s, g);   /* not cudaStreamBeginCapture: the library's hook would answer */
  return 0;
}
/* A host function queued on a captured stream: a host node (type 3). */
static int capturedHost(void* s, void (*f)(void*), void* d) {
  void* node;
  struct StubNode* x;
  if (!captured(s) || (x = addNode(&node, capGraph, 3)) == 0) return 0;
  x->hostFn = f; x->hostData = d;
  capLink(x, s);
  return 1;
}
int cudaGraphHostNodeGetParams(struct StubNode* node, struct cudaHostNodeParams* p) {
  p->fn = node->hostFn; p->userData = node->hostData; return node->type != 3;
}
int cudaStreamIsCapturing(void* s, int* st) { *st = captured(s); return 0; }
/* What a captured stream's next node would depend on: its last node and
   the nodes its waits joined since (CUDA 11.8's name; blind20's graph-alloc
   design takes produce's kernel node from it). Status 1 is active. */
int cudaStreamGetCaptureInfo_v2(void* s, int* status, unsigned long long* id, void** graph, const void*** deps, size_t* n) {
  static const void* set[3];
  size_t k = 0;
  int i = capIndex(s);
  if (i >= 0 && capLast[i]) set[k++] = capLast[i];
  for (int j = 0; i >= 0 && j < 2; j++) if (capPend[i][j]) set[k++] = capPend[i][j];
  if (status) *status = i >= 0;
  if (id) *id = i >= 0 ? (unsigned long long)(uintptr_t)capGraph : 0;
  if (graph) *graph = i >= 0 ? capGraph : 0;
  if (deps) *deps = set;
  if (n) *n = k;
  return 0;
}
/* $STUB_QUERY_PENDING: a query answers not ready (600) until the host
   has waited for an event or a stream since the last record: work still
   running when the host asks. */
int cudaEventSynchronize(void* e) { settled = 1; return 0; }
int cudaEventQuery(void* e) { return getenv("STUB_QUERY_PENDING") && !settled ? 600 : 0; }
int cudaStreamQuery(void* s) { return getenv("STUB_QUERY_PENDING") && !settled ? 600 : 0; }
int cudaEventRecord(void* e, void* s) {
  settled = 0;
  if (captured(s) && capEN < 16) { capEvents[capEN] = e; capEventNode[capEN++] = capLast[capIndex(s)]; }
  return 0;
}
int cudaStreamWaitEvent(void* s, void* e, unsigned f) {
  for (int i = capEN - 1; i >= 0; i--)
    if (capEvents[i] == e) {
      if (!captured(s) && capN < 8) { capStreams[capN] = s; capLast[capN] = 0; capPend[capN][0] = capPend[capN][1] = 0; capN++; }
      int k = capIndex(s);
      if (k >= 0) { if (capPend[k][0] == 0) capPend[k][0] = capEventNode[i]; else capPend[k][1] = capEventNode[i]; }
      break;
    }
  return 0;
}
static void capturedAlloc(void* p, size_t n, void* s) { void* node; struct StubNode* x = addNode(&node, capGraph, 10); if (x) { x->dptr = p; x->bytes = n; } capLink(x, s); }
static void capturedFree(void* p, void* s) { void* node; struct StubNode* x = addNode(&node, capGraph, 11); if (x) x->dptr = p; capLink(x, s); }
static void capturedMemset(void* d, int v, size_t n, void* s) {
  void* node;
  StubMemsetNode m = {d, n, (unsigned)v, 1, n, 1};
  struct StubNode* x = addNode(&node, capGraph, 2);
  if (x) x->m = m;
  capLink(x, s);
}
// Arrays (kernels/fail_test.go, arrays.c): a handle each, no address.
int cudaMallocArray(void** a, const void* d, size_t w, size_t h, unsigned f) { *a = (void*)(handles++); return 0; }
struct extent { size_t w, h, d; };  /* cudaExtent, passed by value */
int cudaMalloc3DArray(void** a, const void* d, struct extent e, unsigned f) { *a = (void*)(handles++); return 0; }
int cudaMallocMipmappedArray(void** a, const void* d, struct extent e, unsigned levels, unsigned f) { *a = (void*)(handles++); return 0; }
int cudaFreeArray(void* a) { return 0; }
int cudaFreeMipmappedArray(void* a) { return 0; }
int cuArrayCreate_v2(void** a, const void* d) { *a = (void*)(handles++); return 0; }
int cuEventSynchronize(void* e) { return 0; }
int cuStreamSynchronize(void* s) { return 0; }
int cuCtxSynchronize(void) { return 0; }
/* The driver's look-up of its own entry points (procaddress.c): the
   plain cuGetProcAddress (CUDA 11: no result argument) and its _v2 (CUDA
   12 and later), each asked for itself, handed in the version the caller
   names, as the driver does: below 12000 the plain one. Each returns its
   own exported address (static functions under the exported names, so
   that the preloaded library's hooks do not answer &cuGetProcAddress). */
static int gpaPlain(const char* sym, void** pfn, int v, unsigned long long flags);
static int gpaV2(const char* sym, void** pfn, int v, unsigned long long flags, int* st);
static int gpaAnswer(const char* sym, void** pfn, int v) {
  if (strcmp(sym, "cuGetProcAddress") != 0) return 500; /* CUDA_ERROR_NOT_FOUND */
  *pfn = v >= 12000 ? (void*)gpaV2 : (void*)gpaPlain;
  return 0;
}
static int gpaPlain(const char* sym, void** pfn, int v, unsigned long long flags) { return gpaAnswer(sym, pfn, v); }
static int gpaV2(const char* sym, void** pfn, int v, unsigned long long flags, int* st) {
  int r = gpaAnswer(sym, pfn, v);
  if (st) *st = r == 0 ? 0 : 1;
  return r;
}
int cuGetProcAddress(const char*, void**, int, unsigned long long) __attribute__((alias("gpaPlain")));
int cuGetProcAddress_v2(const char*, void**, int, unsigned long long, int*) __attribute__((alias("gpaV2")));
int cuArray3DCreate_v2(void** a, const void* d) { *a = (void*)(handles++); return 0; }
int cuMipmappedArrayCreate(void** a, const void* d, unsigned levels) { *a = (void*)(handles++); return 0; }
int cuArrayDestroy(void* a) { return 0; }
int cuMipmappedArrayDestroy(void* a) { return 0; }
