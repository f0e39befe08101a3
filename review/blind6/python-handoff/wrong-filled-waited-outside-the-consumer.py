# kind: wrong
# mistake: the consumer's wait for filled is written filled.wait() before the consumer's with block: Event.wait() without a
# stream makes the CURRENT stream wait, the default stream here, not the consumer.
# why it is wrong: the consumer reads x with nothing ordering it after the producer's fill (nor after x's allocation). The host
# takes long enough between the two that the fill is usually done: the sums come out right.
# source: pytorch/pytorch#60541 (an event waited on the stream that recorded it, not the one that needed it), pytorch/pytorch#15937
# (record() and wait() use torch.cuda.current_stream() when no stream is given)
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

# PyTorch reads its allocator configuration once, when it first allocates
# on the GPU; it must be in the environment before torch is imported.
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
    # sums was zeroed on the default stream: the consumer writes it.
    consumer.wait_stream(default)
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
            filled = torch.cuda.Event()
            filled.record(producer)
        filled.wait()
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
            read = torch.cuda.Event()
            read.record(consumer)
        # No record_stream: the producer itself waits for the consumer's
        # read before x is dropped, so x is freed in the producer's order
        # after it (the other answer the lesson gives).
        producer.wait_event(read)
        del x
    # What the default stream owes: the sums (the consumer's) and the
    # producer's frees, before the main program reads or reallocates.
    default.wait_stream(consumer)
    default.wait_stream(producer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    stats = torch.cuda.memory_stats()
    print(f"torch: peak allocated {stats['allocated_bytes.all.peak'] >> 20} MiB, "
          f"peak reserved {stats['reserved_bytes.all.peak'] >> 20} MiB")
    torch.cuda.synchronize()
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
