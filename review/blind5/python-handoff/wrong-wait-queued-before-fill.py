# kind: ordering: the consumer's wait queued before the work it is meant to
#   wait for
# mistake: the consumer's wait_stream(producer) is made at the top of each
#   batch, before the producer's allocation and fill are queued, as if it
#   waited for whatever the producer will do.
# why it is wrong: wait_stream orders the consumer after the work queued on
#   the producer SO FAR: this batch's fill comes later, so the consumer may
#   double and sum x before (or while) it is filled, and the sums come out
#   wrong.
# source: sgl-project/sglang#14214 ("for the scenarios where the record
#   happens later than the wait": a torch event waited for on one stream
#   before it is recorded on the other).
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

# The allocator's backend is read once, when torch loads: set it first.
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
    consumer.wait_stream(default)  # sums was made and zeroed there
    for b in range(batches):
        consumer.wait_stream(producer)
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(float(b + 1))
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
        x.record_stream(consumer)
        del x
    default.wait_stream(consumer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    allocated = torch.cuda.max_memory_allocated() >> 20
    reserved = torch.cuda.max_memory_reserved() >> 20
    print(f"torch: peak allocated {allocated} MiB, peak reserved {reserved} MiB")
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
