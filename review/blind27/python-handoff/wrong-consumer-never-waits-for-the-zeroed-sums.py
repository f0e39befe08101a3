# kind: wrong (a race the default run usually wins: the record (the consumer writes sums with nothing ordering it after their allocation and zeroing on the default stream))
# mistake: pipeline records the zeroed event on the default stream but never makes the consumer wait for it ('the zeros were queued long before')
# why it is wrong: sums is allocated and zeroed on the default stream, and the consumer writes sums[b]: without the wait nothing orders those writes after the zeroing (and the allocation), so a late zero could wipe a sum; the zeroing is tiny and queued first, so the printed sums are right on nearly every run
# source: related: flashinfer-ai/flashinfer#5027 (a side stream that uses tensors made on the default stream without wait_stream first)
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
# Both names PyTorch reads are written, each from its own entries:
# backend:cudaMallocAsync first, then the others in their order, every
# other backend entry dropped.
def _with_async_backend(value):
    kept = ["backend:cudaMallocAsync"]
    for entry in value.split(","):
        key = entry.partition(":")[0].strip()
        if entry.strip() and key != "backend":
            kept.append(entry.strip())
    return ",".join(kept)


for _name in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):
    os.environ[_name] = _with_async_backend(os.environ.get(_name, ""))

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
    # Every join is an event: the consumer waits for the default stream's
    # zeroed sums once, for each batch's fill, and the default stream
    # waits for the consumer's last sum once.
    main = torch.cuda.current_stream()
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    zeroed = torch.cuda.Event()
    zeroed.record(main)
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(float(b + 1))
            filled = torch.cuda.Event()
            filled.record()  # on the current stream: the producer
        with torch.cuda.stream(consumer):
            consumer.wait_event(filled)
            doubled = torch.add(x, x)
            sums[b] = doubled.sum(dtype=torch.float64)
            del doubled
        # x was made in the producer's order: its free must also wait for
        # the consumer's work queued so far.
        x.record_stream(consumer)
        del x
    done = torch.cuda.Event()
    done.record(consumer)
    main.wait_event(done)


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
