# kind: wrong (the record only: a host wait (a polling loop, no synchronize call) at every batch, and uses of x on the consumer not ordered after its fill in stream order; the printed lines right)
# mistake: instead of consumer.wait_event(filled), the host spins on `while not filled.query(): pass` before queuing the consumer's work, 'start the consumer once the fill is done'
# why it is wrong: the host now waits for the producer at every batch (a busy loop: no cudaStreamSynchronize or cudaEventSynchronize for a grader to count), and the consumer stream itself is never ordered after the producer: the consumer's reads of x are ordered after x's allocation and fill only by the host's timing, not by any stream dependency the allocator or a checker can see
# source: own
"""Day 77 exercise: a two-stream pipeline in PyTorch on CUDA's pool.

For each batch a producer stream fills a 16 MiB tensor with the batch's
number, and a consumer stream doubles it and sums it into one slot of
`sums`. The producer lets go of each tensor once it has handed it on.
Complete the three parts marked TODO; `lessons check python-handoff`
runs this file with the statistics library preloaded into python3 and
judges what CUDA's allocator saw.
"""
import os
import re
import sys

# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
_BACKEND = re.compile(r"\s*backend\s*:\s*[^,]*,?")


def _use_async_backend(name):
    rest = _BACKEND.sub("", os.environ.get(name, "")).strip().strip(",")
    os.environ[name] = "backend:cudaMallocAsync" + ("," + rest if rest else "")


_use_async_backend("PYTORCH_CUDA_ALLOC_CONF")
if "PYTORCH_ALLOC_CONF" in os.environ:
    _use_async_backend("PYTORCH_ALLOC_CONF")

import torch  # noqa: E402

N = 4 << 20  # floats per batch: 16 MiB


def pipeline(batches, sums):
    """Fills sums[b] with the sum of 2 * (b + 1) over N elements, for each
    batch b, the fill on one stream and the doubling and sum on another.
    Nothing here may wait on the host: the streams run side by side."""
    # TODO 2: make the two streams; for each batch, allocate and fill x on
    # the producer, double and sum it on the consumer into sums[b], and
    # drop x. The consumer must not read x before the producer wrote it,
    # and x's memory must not be handed out again while the consumer may
    # still read it.
    main = torch.cuda.current_stream()
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    consumer.wait_stream(main)  # sums was zeroed on the default stream
    with torch.cuda.stream(consumer):
        y = torch.empty(N, dtype=torch.float32, device="cuda")  # the consumer's scratch, reused by every batch
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(float(b + 1))
        filled = producer.record_event()
        while not filled.query():
            pass
        with torch.cuda.stream(consumer):
            torch.mul(x, 2, out=y)
            sums[b].copy_(y.sum(dtype=torch.float64))
            x.record_stream(consumer)
        del x
    main.wait_stream(consumer)
    del y


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
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
