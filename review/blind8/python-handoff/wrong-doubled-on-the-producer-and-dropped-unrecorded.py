# kind: wrong (the record only: a tensor freed in the producer's order while the consumer reads it)
# mistake: the doubling is done on the producer, right after the fill (y = x * 2 inside the producer's with), and the consumer only sums y; x.record_stream(consumer) is kept, but y is dropped with no record_stream.
# why it is wrong: y is made on the producer and read on the consumer; dropped unrecorded, its memory is free in the producer's order, and the next batch's x or y can be given that memory while the consumer's sum of this y is still queued: the numbers are usually right, and the record shows the free while another stream could read.
# source: NVIDIA/TensorRT-LLM#15265 (tensors allocated on one stream and consumed on another without record_stream: event waits order the work, not the allocator's reuse), meta-pytorch/torchrec#4231
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

# The backend is read once, when PyTorch first allocates on the GPU: it is
# set before torch is imported at all.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"

import torch  # noqa: E402

N = 4 << 20  # floats per batch: 16 MiB


def pipeline(batches, sums):
    """Fills sums[b] with the sum of 2 * (b + 1) over N elements, for each
    batch b, the fill on one stream and the doubling and sum on another.
    Nothing here may wait on the host: the streams run side by side."""
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    default = torch.cuda.current_stream()
    # The consumer writes its sums into a tensor of its own, made on its
    # stream, so it never touches `sums`; the default stream copies them
    # over once, at the end, after waiting for the consumer.
    with torch.cuda.stream(consumer):
        part = torch.zeros(batches, dtype=torch.float64, device="cuda")
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
            y = x * 2
        consumer.wait_stream(producer)
        with torch.cuda.stream(consumer):
            part[b] = y.sum(dtype=torch.float64)
        # x's memory goes back in the producer's order: the allocator must
        # also wait for what the consumer has queued on it.
        x.record_stream(consumer)
        del x, y
    default.wait_stream(consumer)
    sums.copy_(part)
    # part was made on the consumer and is read by the default stream.
    part.record_stream(default)
    del part


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    print(f"torch: peak allocated {torch.cuda.max_memory_allocated() >> 20} MiB, "
          f"peak reserved {torch.cuda.max_memory_reserved() >> 20} MiB")
    torch.cuda.synchronize()  # every stream's frees done: the pool can give it all back
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
