EXERCISE = 'async-pipeline'
STUDENT = 'exercises/day069/async_pipeline.cu'
EXT = 'cu'
TODO = [
("""    // TODO 1: what the pipeline keeps: the streams it was given, and the
    // host's memory that main fills and reads.
    float* in_ = nullptr;""",
"""    // The streams main made (its array outlives the pipeline), one event
    // per stream, made once, and a stream of the pipeline's own that
    // drain joins every stream into, so that the host waits once.
    const cudaStream_t* streams_ = nullptr;
    int count_ = 0;
    std::vector<cudaEvent_t> done_;
    cudaStream_t join_ = nullptr;
    float* in_ = nullptr;"""),
("""#include <cuda_runtime.h>

#define CHECK""", """#include <vector>
#include <cuda_runtime.h>

#define CHECK"""),
("""Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) {
    (void)streams;
    (void)count;
    in_ = static_cast<float*>(calloc(total, sizeof(float)));
    out_ = static_cast<float*>(calloc(total, sizeof(float)));
    sums_ = static_cast<long long*>(calloc((size_t)iterations * BLOCKS, sizeof(long long)));
}""",
"""Pipeline::Pipeline(const cudaStream_t* streams, int count, size_t total, int iterations) {
    streams_ = streams;
    count_ = count;
    // Page-locked host memory from cudaHostAlloc: the copies then run
    // while the host goes on (main fills it before any copy).
    CHECK(cudaHostAlloc(&in_, total * sizeof(float), cudaHostAllocDefault));
    CHECK(cudaHostAlloc(&out_, total * sizeof(float), cudaHostAllocDefault));
    CHECK(cudaHostAlloc(&sums_, (size_t)iterations * BLOCKS * sizeof(long long), cudaHostAllocDefault));
    done_.assign(count, nullptr);
    for (cudaEvent_t& e : done_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    CHECK(cudaStreamCreateWithFlags(&join_, cudaStreamNonBlocking));
}"""),
("""void Pipeline::submit(int it, size_t off, int n) {
    (void)it;
    (void)off;
    (void)n;
}""",
"""void Pipeline::submit(int it, size_t off, int n) {
    cudaStream_t s = streams_[it % count_];
    // One device allocation an iteration: the slice, the scaled values
    // and the partial sums, one after another (every part 8-byte aligned:
    // n floats twice is a multiple of 8 bytes when n is even, and the
    // allocation itself is 256-aligned).
    const size_t floats = 2 * (size_t)n + (n & 1);
    const size_t bytes = floats * sizeof(float) + BLOCKS * sizeof(long long);
    float* dev = nullptr;
    CHECK(cudaMallocAsync(&dev, bytes, s));
    float* din = dev;
    float* dout = dev + n;
    long long* dsum = reinterpret_cast<long long*>(dev + floats);
    CHECK(cudaMemcpyAsync(din, in_ + off, (size_t)n * sizeof(float), cudaMemcpyHostToDevice, s));
    scale<<<BLOCKS, THREADS, 0, s>>>(din, dout, n, 2.0f);
    checksum<<<BLOCKS, THREADS, 0, s>>>(dout, n, dsum);
    CHECK(cudaMemcpyAsync(out_ + off, dout, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, dsum, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(dev, s));
}"""),
("""void Pipeline::drain() {
}""",
"""void Pipeline::drain() {
    // Every stream's work so far, joined into the pipeline's own stream:
    // one wait on the host covers them all.
    for (int i = 0; i < count_; i++) {
        CHECK(cudaEventRecord(done_[i], streams_[i]));
        CHECK(cudaStreamWaitEvent(join_, done_[i], 0));
    }
    CHECK(cudaStreamSynchronize(join_));
}"""),
("""Pipeline::~Pipeline() {
    free(in_);
    free(out_);
    free(sums_);
}""",
"""Pipeline::~Pipeline() {
    for (cudaEvent_t e : done_) CHECK(cudaEventDestroy(e));
    CHECK(cudaStreamDestroy(join_));
    CHECK(cudaFreeHost(in_));
    CHECK(cudaFreeHost(out_));
    CHECK(cudaFreeHost(sums_));
}"""),
]
CORRECT = dict(
    kind='correct',
    mistake="none: host buffers from cudaHostAlloc; one cudaMallocAsync an iteration holding the slice, the scaled values and the partial sums, freed after both copies back; drain records an event on each stream, makes a stream of the pipeline's own wait for them all and synchronises that one stream",
    **{'why it is wrong': 'it is not: every iteration runs in one stream order, the iterations spread over every stream, and the join covers every stream before the host reads'},
    source='none (written from the lesson and the student file)')
WRONG = [
('sums-sized-as-floats',
 dict(kind='wrong (a size on a boundary: the allocation is 256 bytes short; the output is right)',
      mistake="the iteration's allocation counts the BLOCKS partial sums at sizeof(float) instead of sizeof(long long), so checksum writes its last 32 sums past the end of the allocation",
      **{'why it is wrong': "the pool rounds every allocation up, so the 256 bytes past the end are mapped and the checksums come back right; they may be another allocation's (an iteration on another stream, given the pool's reuse), and a memory checker or a tracker of allocation bounds sees writes outside the buffer"},
      source='munstermonster/cuSten#1 (review: an allocation sized with the wrong element type, right by luck for one type where the sizes agree, an overflow for the other), Ewenwan/ShiYanLou#1 (cudaMalloc of float arrays sized with sizeof(int))'),
 [("""    const size_t bytes = floats * sizeof(float) + BLOCKS * sizeof(long long);""",
   """    const size_t bytes = (floats + BLOCKS) * sizeof(float);""")]),
('iterations-split-into-contiguous-runs',
 dict(kind='wrong (a branch the defaults never take: iterations that are not a multiple of the streams)',
      mistake="submit gives each stream a run of consecutive iterations, stream it / (iterations / count), instead of spreading them round the streams; when count does not divide the iterations the last ones get an index past the streams main made (a null handle in main's array: the legacy default stream), which drain never joins",
      **{'why it is wrong': "12 iterations on 4 streams give runs of 3 on streams 0 to 3, and the run is right; 20 on 3 put iterations 18 and 19 on stream index 3, a null handle: the legacy default stream, which the non-blocking streams and drain's join never wait for, so the host may read those results before they are done, and the iterations are no longer on the streams the exercise gives"},
      source='dials/dials#2848 and SeismicData/pyasdf#6 (work split into chunks of size total / workers: a remainder left over, or an index past the last worker)'),
 [("""    cudaStream_t s = streams_[it % count_];""",
   """    // Consecutive iterations share a stream: a run of per each.
    const int per = iterations_ / count_ > 0 ? iterations_ / count_ : 1;
    cudaStream_t s = streams_[it / per];"""),
  ("""    int count_ = 0;
    std::vector<cudaEvent_t> done_;""",
   """    int count_ = 0;
    int iterations_ = 0;
    std::vector<cudaEvent_t> done_;"""),
  ("""    streams_ = streams;
    count_ = count;""",
   """    streams_ = streams;
    count_ = count;
    iterations_ = iterations;""")]),
('drain-events-for-eight-streams',
 dict(kind='wrong (a branch the defaults never take: more than 8 streams)',
      mistake="the per-stream events are kept in a fixed array of 8 (twice the default 4 streams), made and recorded for every stream main gives, up to 16",
      **{'why it is wrong': "with 9 to 16 streams the constructor writes event handles past the array, over the members that follow it (the join stream and the host buffers' pointers): the program then writes its input through a pointer that is an event handle, or drain joins nothing it should. On 4 streams, and on the secret run's 3, nothing shows"},
      source='Mesh-LLM/mesh-llm#1301 (llama.cpp streams kept in an array of GGML_CUDA_MAX_STREAMS = 8, indexed one past its end at the largest stream count), FLAMEGPU/FLAMEGPU2#727 (per-stream data in a fixed array of 128 that more streams outgrow)'),
 [("""    std::vector<cudaEvent_t> done_;
    cudaStream_t join_ = nullptr;""",
   """    cudaEvent_t done_[8] = {};
    cudaStream_t join_ = nullptr;"""),
  ("""    done_.assign(count, nullptr);
    for (cudaEvent_t& e : done_) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));""",
   """    for (int i = 0; i < count; i++) CHECK(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming));"""),
  ("""    for (cudaEvent_t e : done_) CHECK(cudaEventDestroy(e));""",
   """    for (int i = 0; i < count_; i++) CHECK(cudaEventDestroy(done_[i]));""")]),
]
