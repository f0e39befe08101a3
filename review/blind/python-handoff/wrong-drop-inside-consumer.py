# kind: free in the allocating stream's order, believed to be the current stream's (output identical)
# mistake: Each tensor is dropped inside the consumer's `with` block, right after its sum is queued, with no record_stream and no wait: the student believes a tensor dropped while the consumer is the current stream is freed in the consumer's order, after the read.
# why it is wrong: PyTorch frees a tensor's memory in the order of the stream that allocated it (the producer), whatever stream is current when the last reference goes. With backend:cudaMallocAsync the cudaFreeAsync is queued on the producer, which is not ordered after the consumer's read, so the next batch's fill on the producer may take the same block while the consumer still reads it. The fill of the next batch usually starts after the read has ended, so the sums are right on most runs.
# source: https://wenscarl.github.io/GPU/Why-record-stream-Matters-A-Real-CUDA-Memory-Bug-in-SGLang.html (SGLang: a tensor's last reference dropped while another stream still read it; fixed with record_stream); https://github.com/meta-pytorch/torchrec/pull/4231 (NaN corruption from a missing record_stream)
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

# PyTorch reads this once, when it first touches CUDA's memory: it must be
# set before that, and setting it before the import is the safe place.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"

import torch  # noqa: E402

N = 4 << 20  # floats per batch: 16 MiB


def pipeline(batches, sums):
    """Fills sums[b] with the sum of 2 * (b + 1) over N elements, for each
    batch b, the fill on one stream and the doubling and sum on another.
    Nothing here may wait on the host: the streams run side by side."""
    home = torch.cuda.current_stream()  # made sums, and reads it after us
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    consumer.wait_stream(home)  # sums was zeroed there
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.full((N,), float(b + 1), device="cuda")
        filled = torch.cuda.Event()
        filled.record(producer)
        consumer.wait_event(filled)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
            del x  # dropped on the consumer, after its read is queued
    home.wait_stream(consumer)  # sums is read on the default stream next


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    peak_allocated = torch.cuda.max_memory_allocated()
    peak_reserved = torch.cuda.max_memory_reserved()
    print(f"torch: peak allocated {peak_allocated >> 20} MiB, peak reserved {peak_reserved >> 20} MiB")
    torch.cuda.empty_cache()  # with cudaMallocAsync: trims the device's pool
    print(f"torch: reserved now {torch.cuda.memory_reserved() >> 20} MiB")


def main():
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    print("allocator backend:", torch.cuda.get_allocator_backend())
    sums = torch.zeros(batches, dtype=torch.float64, device="cuda")
    pipeline(batches, sums)
    got = sums.tolist()
    ok = sum(1 for b, g in enumerate(got) if g == 2.0 * (b + 1) * N)
    print(f"sums: {ok} of {batches} correct")
    del sums
    release()


if __name__ == "__main__":
    main()
