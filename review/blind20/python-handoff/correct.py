# kind: correct
# mistake: none. Design: PYTORCH_CUDA_ALLOC_CONF (and PYTORCH_ALLOC_CONF, when set) rewritten before the import by a small function that replaces every backend entry IN PLACE by backend:cudaMallocAsync (appended only when there is none), the other entries kept where they were; a FRESH torch.cuda.Event for every batch, recorded once on the producer behind the fill and waited for by the consumer (wait_event); x marked with record_stream(consumer) inside the consumer's block and dropped right after, so the allocator orders its free after the read; the consumer waits for the default stream once (the zeroed sums), the default stream waits for both side streams at the end; the sum taken in float64; the peaks from max_memory_allocated and max_memory_reserved, then empty_cache
# why it is wrong: it is not
# source: own (written from the student file and the course hints)
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
_ASYNC = "backend:cudaMallocAsync"


def _with_async_backend(conf):
    """conf, a comma-separated list of key:value settings, with every
    backend entry replaced in place by the cudaMallocAsync one (added at
    the end when there is none); the other settings kept as they are."""
    entries = [e.strip() for e in conf.split(",") if e.strip()]
    found = False
    for k, e in enumerate(entries):
        if e.split(":", 1)[0].strip() == "backend":
            entries[k] = _ASYNC
            found = True
    if not found:
        entries.append(_ASYNC)
    return ",".join(entries)


# Before torch is imported: the allocator reads its settings once. The
# newer name, PYTORCH_ALLOC_CONF, is changed too when it is set.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = _with_async_backend(os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""))
if "PYTORCH_ALLOC_CONF" in os.environ:
    os.environ["PYTORCH_ALLOC_CONF"] = _with_async_backend(os.environ["PYTORCH_ALLOC_CONF"])

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
    # sums was zeroed on the default stream: the consumer writes it after.
    consumer.wait_stream(main_stream)
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
            # A fresh event for every batch, recorded once, behind the fill.
            filled = torch.cuda.Event()
            filled.record(producer)
        with torch.cuda.stream(consumer):
            consumer.wait_event(filled)
            sums[b] = (x * 2).sum(dtype=torch.float64)
            # x was made on the producer; the allocator must also know the
            # consumer used it, so that its free waits for this read.
            x.record_stream(consumer)
        del x
    # The default stream reads sums next, and allocates after both.
    main_stream.wait_stream(consumer)
    main_stream.wait_stream(producer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    peak_allocated = torch.cuda.max_memory_allocated() >> 20
    peak_reserved = torch.cuda.max_memory_reserved() >> 20
    print(f"torch: peak allocated {peak_allocated} MiB, peak reserved {peak_reserved} MiB")
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
