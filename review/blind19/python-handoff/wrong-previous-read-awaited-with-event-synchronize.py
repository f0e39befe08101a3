# kind: wrong (the record: a host wait at every batch but the first (cudaEventSynchronize of the batch before's read, while the producer has already queued this batch's fill); the sums right, the streams overlapping less)
# mistake: before dropping the batch before's x the script calls held_read.synchronize(), making the host wait for the read, instead of producer.wait_event(held_read)
# why it is wrong: the producer's order must come after the read, which a stream wait does on the GPU; Event.synchronize blocks the Python thread until the read is done, a host wait the exercise forbids
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
for _name in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):
    if _name == "PYTORCH_ALLOC_CONF" and _name not in os.environ:
        continue
    _entries = [e.strip() for e in os.environ.get(_name, "").split(",") if e.strip()]
    _entries = [e for e in _entries if e.split(":", 1)[0].strip() != "backend"]
    os.environ[_name] = ",".join(["backend:cudaMallocAsync"] + _entries)

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
    main_stream = torch.cuda.current_stream()
    consumer.wait_stream(main_stream)  # sums were zeroed on the default stream
    held, held_read = None, None  # the batch before: its x and the event after its read
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(float(b + 1))
        filled = torch.cuda.Event()
        filled.record(producer)
        consumer.wait_event(filled)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
        read = torch.cuda.Event()
        read.record(consumer)
        if held is not None:
            # The producer's order now comes after the batch before's read, so
            # the free of its x, queued there when the last reference goes, does too.
            held_read.synchronize()
            held = None
        held, held_read = x, read
        del x
    if held is not None:
        producer.wait_event(held_read)
        held = None
    main_stream.wait_stream(consumer)
    main_stream.wait_stream(producer)


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
