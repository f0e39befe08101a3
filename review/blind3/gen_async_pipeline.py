import sys; sys.path.insert(0, '.')
from mk import build
src = open('../../exercises/day069/async_pipeline.cu').read()
D = 'async-pipeline/'
correct = [
("""    // TODO 1: what the pipeline keeps: the streams it was given, and the
    // host's memory that main fills and reads.
    float* in_ = nullptr;""",
"""    const cudaStream_t* streams_ = nullptr;
    int count_ = 0;
    float* in_ = nullptr;"""),
("""    (void)streams;
    (void)count;
    in_ = static_cast<float*>(calloc(total, sizeof(float)));
    out_ = static_cast<float*>(calloc(total, sizeof(float)));
    sums_ = static_cast<long long*>(calloc((size_t)iterations * BLOCKS, sizeof(long long)));
}""",
"""    streams_ = streams;
    count_ = count;
    CHECK(cudaMallocHost(&in_, total * sizeof(float)));
    CHECK(cudaMallocHost(&out_, total * sizeof(float)));
    CHECK(cudaMallocHost(&sums_, (size_t)iterations * BLOCKS * sizeof(long long)));
}"""),
("""void Pipeline::submit(int it, size_t off, int n) {
    (void)it;
    (void)off;
    (void)n;
}""",
"""void Pipeline::submit(int it, size_t off, int n) {
    cudaStream_t s = streams_[it % count_];
    const size_t bytes = (size_t)n * sizeof(float);
    float* dIn = nullptr;
    float* dOut = nullptr;
    long long* dPartial = nullptr;
    CHECK(cudaMallocAsync(&dIn, bytes, s));
    CHECK(cudaMallocAsync(&dOut, bytes, s));
    CHECK(cudaMemcpyAsync(dIn, in_ + off, bytes, cudaMemcpyHostToDevice, s));
    scale<<<BLOCKS, THREADS, 0, s>>>(dIn, dOut, n, 2.0f);
    CHECK(cudaFreeAsync(dIn, s)); // scale was its last reader
    CHECK(cudaMallocAsync(&dPartial, BLOCKS * sizeof(long long), s));
    checksum<<<BLOCKS, THREADS, 0, s>>>(dOut, n, dPartial);
    CHECK(cudaMemcpyAsync(out_ + off, dOut, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, dPartial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(dOut, s));
    CHECK(cudaFreeAsync(dPartial, s));
}"""),
("""void Pipeline::drain() {
}""",
"""void Pipeline::drain() {
    for (int i = 0; i < count_; i++) CHECK(cudaStreamSynchronize(streams_[i]));
}"""),
("""Pipeline::~Pipeline() {
    free(in_);
    free(out_);
    free(sums_);
}""",
"""Pipeline::~Pipeline() {
    cudaFreeHost(in_);
    cudaFreeHost(out_);
    cudaFreeHost(sums_);
}"""),
]
H = """kind: correct
mistake: none: pinned host memory from cudaMallocHost, iteration it on stream it % count,
  its three device buffers from cudaMallocAsync and freed with cudaFreeAsync on that
  stream after their last reader is queued (the input right after scale), drain
  synchronises every stream once, the destructor cudaFreeHost's the host buffers.
why it is wrong: it is not (lesson day 69, exercise async-pipeline).
source: own"""
body = build(src, D + 'correct.cu', H, correct)
def wrong(slug, header, pairs):
    build(body, D + 'wrong-' + slug + '.cu', header, pairs)

wrong('copy-in-default-stream', """kind: wrong (race the output does not show)
mistake: the copy of the input to the GPU leaves out the stream argument, so it runs on
  the legacy default stream, while the buffer was allocated, and scale reads it, on the
  iteration's non-blocking stream.
why it is wrong: cudaMemcpyAsync's stream defaults to 0, and a stream made with
  cudaStreamNonBlocking does not synchronise with the legacy stream (CUDA Runtime API,
  "Stream synchronization behavior"); nothing orders the copy after the stream-ordered
  allocation or before scale. scale spins about 0.2 ms before it reads, longer than a
  4 MiB copy takes, so the results come out right.
source: https://wiki.huangxt.cn/gpu/CUDA-Runtime-API-Synchronization-and-Stream-Behavior
  (non-blocking streams are the exception to the legacy stream's ordering; the forgotten
  stream argument of cudaMemcpyAsync is the classic way into it)""", [
("""    CHECK(cudaMemcpyAsync(dIn, in_ + off, bytes, cudaMemcpyHostToDevice, s));""",
"""    CHECK(cudaMemcpyAsync(dIn, in_ + off, bytes, cudaMemcpyHostToDevice));"""),
])

wrong('alloc-on-first-stream', """kind: wrong (race the output does not show)
mistake: every iteration's buffers are allocated with cudaMallocAsync on the first stream
  ("one place that allocates"), then used and freed on the iteration's own stream, with
  no event between the allocating stream and the using one.
why it is wrong: a stream-ordered allocation is valid only once the allocating stream
  reaches it; using it on another stream needs that stream ordered after the allocation
  (CUDA Programming Guide, "Stream Ordered Memory Allocator": an allocation may be used
  on another stream only once that stream is ordered after the allocation).
  The first stream reaches the allocation at once when it is idle, so the results are
  right, but a free of the same memory from another iteration may still be pending.
source: https://github.com/rapidsai/rmm/issues/2156 (RMM's allocate_sync: memory allocated
  in one stream's order, then used and freed on a non-blocking stream that never waited
  for it; compute-sanitizer --track-stream-ordered-races reports it)""", [
("""    CHECK(cudaMallocAsync(&dIn, bytes, s));
    CHECK(cudaMallocAsync(&dOut, bytes, s));""",
"""    CHECK(cudaMallocAsync(&dIn, bytes, streams_[0]));
    CHECK(cudaMallocAsync(&dOut, bytes, streams_[0]));"""),
("""    CHECK(cudaMallocAsync(&dPartial, BLOCKS * sizeof(long long), s));""",
"""    CHECK(cudaMallocAsync(&dPartial, BLOCKS * sizeof(long long), streams_[0]));"""),
])

wrong('drain-one-event', """kind: wrong (partial wait the output does not show)
mistake: drain records one event on every stream in turn and then waits for it once: only
  the last record counts, so the host waits for the last stream alone.
why it is wrong: re-recording an event replaces what it captures; cudaEventSynchronize
  waits for the most recent cudaEventRecord only (CUDA Runtime API, cudaEventRecord:
  "the most recent call"; cudaStreamWaitEvent: "the most recent host call to
  cudaEventRecord()"). main checks the last iteration first, which is on the last stream,
  and the other streams' work, queued earlier, has usually finished too.
source: https://cs.cmu.edu/afs/cs/academic/class/15668-s11/www/cuda-doc/html/group__CUDART__STREAM_gfe68d207dc965685d92d3f03d77b0876.html
  (the runtime reference: a wait covers only the most recent record of the event)""", [
("""    for (int i = 0; i < count_; i++) CHECK(cudaStreamSynchronize(streams_[i]));""",
"""    cudaEvent_t all;
    CHECK(cudaEventCreateWithFlags(&all, cudaEventDisableTiming));
    for (int i = 0; i < count_; i++) CHECK(cudaEventRecord(all, streams_[i]));
    CHECK(cudaEventSynchronize(all));
    CHECK(cudaEventDestroy(all));"""),
])

wrong('free-input-before-scale', """kind: wrong (use after free the output does not show)
mistake: the input buffer is freed right after its copy in is queued, before scale, taking
  "the copy was its use" for its last use.
why it is wrong: cudaFreeAsync frees in stream order, so scale then reads memory that is
  already back in the pool (CUDA Runtime API, cudaFreeAsync; lesson day 69: a free goes
  "once nothing will read it"). The next allocation on the stream (the partial sums)
  may take the same memory, but checksum writes it only after scale has read, in the
  same stream, so every result is right.
source: own""", [
("""    scale<<<BLOCKS, THREADS, 0, s>>>(dIn, dOut, n, 2.0f);
    CHECK(cudaFreeAsync(dIn, s)); // scale was its last reader""",
"""    CHECK(cudaFreeAsync(dIn, s)); // copied: done with it
    scale<<<BLOCKS, THREADS, 0, s>>>(dIn, dOut, n, 2.0f);"""),
])

wrong('write-combined-host-buffers', """kind: wrong (an API misread; output the same)
mistake: the host buffers come from cudaHostAlloc with cudaHostAllocWriteCombined ("faster
  transfers"), the output and the sums included, which the host then reads.
why it is wrong: write-combined memory is for buffers the host only writes: reads from
  it by the host are very slow, since it is not cached (CUDA Programming Guide,
  "Write-Combining Memory"; runtime API, cudaHostAlloc). The input is right for it; the
  output and the sums, read by main after drain, are not. The memory is pinned, so
  pinned() says yes, and every result is right.
source: own""", [
("""    CHECK(cudaMallocHost(&in_, total * sizeof(float)));
    CHECK(cudaMallocHost(&out_, total * sizeof(float)));
    CHECK(cudaMallocHost(&sums_, (size_t)iterations * BLOCKS * sizeof(long long)));""",
"""    CHECK(cudaHostAlloc(&in_, total * sizeof(float), cudaHostAllocWriteCombined));
    CHECK(cudaHostAlloc(&out_, total * sizeof(float), cudaHostAllocWriteCombined));
    CHECK(cudaHostAlloc(&sums_, (size_t)iterations * BLOCKS * sizeof(long long), cudaHostAllocWriteCombined));"""),
])
