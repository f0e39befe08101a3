# kind: wrong (shows only when the environment already holds an allocator option)
# mistake: TODO 1 sets the backend with os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync"), so a run whose environment already names any option (expandable_segments, a garbage threshold) keeps PyTorch's native caching allocator.
# why it is wrong: setdefault leaves an existing PYTORCH_CUDA_ALLOC_CONF alone: on a machine or a grader that sets another option, the backend line prints native and no tensor comes from CUDA's stream-ordered pool, the exercise's first requirement; a casual run in a clean shell prints cudaMallocAsync.
# source: axolotl-ai-cloud/axolotl#2183 (PYTORCH_CUDA_ALLOC_CONF set by the program only when os.getenv says it is None), NovaSky-AI/SkyRL#1768 (review: a launcher exports PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True for its workers; the variable is often already set in a real environment)
"""Day 77 exercise: a two-stream pipeline in PyTorch on CUDA's pool.

For each batch a producer stream fills a 16 MiB tensor with the batch's
number, and a consumer stream doubles it and sums it into one slot of
`sums`. The producer lets go of each tensor once it has handed it on.
Complete the three parts marked TODO; `lessons check python-handoff`
runs this file with the statistics library preloaded into python3 and
judges what CUDA's allocator saw.
"""
import os
import sys

# The backend is read once, when torch first touches CUDA: it must be in
# the environment before the import below.
os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync")

import torch  # noqa: E402

N = 4 << 20  # floats per batch: 16 MiB


def pipeline(batches, sums):
    """Fills sums[b] with the sum of 2 * (b + 1) over N elements, for each
    batch b, the fill on one stream and the doubling and sum on another.
    Nothing here may wait on the host: the streams run side by side."""
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    # sums was zeroed on the default stream: the consumer writes it only
    # after that.
    consumer.wait_stream(torch.cuda.current_stream())
    for b in range(batches):
        filled = torch.cuda.Event()
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(float(b + 1))
            filled.record(producer)
        consumer.wait_event(filled)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2.0).sum(dtype=torch.float64)
        # x was made in the producer's order; the consumer reads it too, so
        # its memory goes back only once the consumer's work queued so far
        # is done.
        x.record_stream(consumer)
        del x
    # Whatever main does next on the default stream comes after both.
    torch.cuda.current_stream().wait_stream(consumer)
    torch.cuda.current_stream().wait_stream(producer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    a = torch.cuda.max_memory_allocated() >> 20
    r = torch.cuda.max_memory_reserved() >> 20
    print(f"torch: peak allocated {a} MiB, peak reserved {r} MiB")
    torch.cuda.empty_cache()
    print(f"torch: reserved now {torch.cuda.memory_reserved() >> 20} MiB")


def main():
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    print("allocator backend:", torch.cuda.get_allocator_backend())
    sums = torch.zeros(batches, dtype=torch.float64, device="cuda")
    pipeline(batches, sums)
    # What each sum should be, made on the GPU after the pipeline: a host
    # wait in pipeline comes between allocations, and the record sees it.
    want = torch.arange(1, batches + 1, dtype=torch.float64, device="cuda") * (2.0 * N)
    ok = int((sums == want).sum().item())
    print(f"sums: {ok} of {batches} correct")
    del sums, want
    release()


if __name__ == "__main__":
    main()
