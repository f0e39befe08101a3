# kind: wrong (the record: main's comparison reads sums on the default stream
#   unordered with the consumer's last writes; the sums line now and then)
# mistake: pipeline ends with the producer's wait for the consumer and the
#   last drop, and leaves out the default stream's wait for the consumer ("main
#   reads sums after everything is queued")
# why it is wrong: queued is not done: sums is written on the consumer stream,
#   and the default stream, which makes want and compares, is ordered after none
#   of those writes
# source: meta-pytorch/torchrec#4067 (the main stream waits for the side
#   stream before it uses what the side stream touched), pytorch/pytorch#23729

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

# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
# The variable may already hold other options: keep them, and replace any
# backend it names.
_options = [o.strip() for o in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "").split(",")]
_options = [o for o in _options if o and not o.startswith("backend:")]
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ",".join(_options + ["backend:cudaMallocAsync"])

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
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    default = torch.cuda.current_stream()
    consumer.wait_stream(default)  # sums was zeroed on the default stream
    previous = None  # the batch before: the consumer may still read it
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
        # The batch before is dropped here, one batch late, so that this
        # fill runs beside its read: the producer first waits for what the
        # consumer has queued, and the free is in the producer's order.
        if previous is not None:
            producer.wait_stream(consumer)
            previous = None
        consumer.wait_stream(producer)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
        previous = x
        del x
    producer.wait_stream(consumer)
    previous = None


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
