# kind: wrong (a race: the record (the fill runs on the default stream, not ordered after x's allocation on the producer nor before the consumer's read); the sums now and then)
# mistake: x.fill_ is written one level out, after the producer's with block, so it runs on the default stream; the producer's event then covers only the allocation
# why it is wrong: the consumer waits for the producer's event, which no longer comes after the fill; and x is used by a stream that neither allocated it nor was recorded on it
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
import sys

# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
def _async_backend(value):
    """value's settings with every backend entry dropped and
    backend:cudaMallocAsync put first."""
    kept = []
    for entry in value.split(","):
        entry = entry.strip()
        if entry and entry.split(":", 1)[0].strip() != "backend":
            kept.append(entry)
    return ",".join(["backend:cudaMallocAsync"] + kept)


# Read when torch first touches CUDA: the older name always, the newer one
# too when it is set (it is read before the older one).
for _name in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):
    if _name == "PYTORCH_CUDA_ALLOC_CONF" or _name in os.environ:
        os.environ[_name] = _async_backend(os.environ.get(_name, ""))

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
    # sums was zeroed on the default stream: the consumer, which writes
    # it, comes after that once, before the first batch.
    consumer.wait_stream(torch.cuda.current_stream())
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, device="cuda")
        x.fill_(b + 1)
        filled = producer.record_event()
        with torch.cuda.stream(consumer):
            filled.wait(consumer)
            # Doubled in place: no second 16 MiB tensor a batch.
            x.mul_(2)
            sums[b] = x.sum(dtype=torch.float64)
            # x was made on the producer: its memory is free again only
            # once the consumer's work queued so far is done.
            x.record_stream(consumer)
        del x
    # The default stream reads sums after the pipeline.
    torch.cuda.current_stream().wait_stream(consumer)


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
