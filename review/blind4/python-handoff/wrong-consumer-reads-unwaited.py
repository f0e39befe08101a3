# kind: race (a Python stream handed over without the consumer waiting)
# mistake: the consumer does not wait for the `filled` event: the student reads the `with` blocks as running one after the other.
# why it is wrong: leaving the producer's with block waits for nothing (the lesson: "Leaving the block does not wait for anything"); x is ready only in the producer's order, so the consumer may double and sum memory the fill has not written yet: sums come out wrong now and then, and the record sees a use before the allocation is ordered.
# source: vllm-project/vllm#13632 ("ops later on which are running on the main/current stream might try to access the result tensors before this kernel is finished. This was causing incorrect results and NaN"); pytorch/pytorch#2702
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

# Read once, when PyTorch first touches CUDA's memory: set before the
# import, whatever the shell had.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"

import torch  # noqa: E402

N = 4 << 20  # floats per batch: 16 MiB


def pipeline(batches, sums):
    """Fills sums[b] with the sum of 2 * (b + 1) over N elements, for each
    batch b, the fill on one stream and the doubling and sum on another.
    Nothing here may wait on the host: the streams run side by side."""
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    # sums was zeroed on the default stream: the consumer writes it after.
    consumer.wait_stream(torch.cuda.current_stream())
    prev = None  # the batch before: (its tensor, the event after its read)
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
            filled = torch.cuda.Event()
            filled.record(producer)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
            read = torch.cuda.Event()
            read.record(consumer)
        if prev is not None:
            # x is free in the producer's order: the producer first comes
            # after the consumer's read of the batch before.
            producer.wait_event(prev[1])
        prev = (x, read)  # the batch before's tensor is dropped here
        del x, read
    producer.wait_event(prev[1])
    prev = None  # the last tensor, dropped after its read
    # The default stream reads sums at the end.
    torch.cuda.current_stream().wait_stream(consumer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    st = torch.cuda.memory_stats()
    print(f"torch: peak allocated {st.get('allocated_bytes.all.peak', 0) >> 20} MiB, "
          f"peak reserved {st.get('reserved_bytes.all.peak', 0) >> 20} MiB")
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
