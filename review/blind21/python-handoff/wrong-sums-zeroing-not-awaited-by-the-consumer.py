# kind: wrong (race: the record (the consumer's writes into sums not ordered after the default stream's zeroing); the sums right nearly always, since the zeroing was queued long before)
# mistake: the consumer never waits for the default stream, where sums was made and zeroed
# why it is wrong: sums is written on the consumer; without a wait on the default stream the consumer's first writes may land before, or be wiped by, the zeros
# source: related: flashinfer-ai/flashinfer#5027 (a side stream not ordered after the default stream that initialised its inputs)
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
for _var in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):
    if _var != "PYTORCH_CUDA_ALLOC_CONF" and _var not in os.environ:
        continue
    _kept = []
    for _entry in os.environ.get(_var, "").split(","):
        _entry = _entry.strip()
        if _entry and _entry.partition(":")[0].strip() != "backend":
            _kept.append(_entry)
    _kept.append("backend:cudaMallocAsync")
    os.environ[_var] = ",".join(_kept)

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
    filled = torch.cuda.Event()   # recorded again for every batch
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(float(b + 1))
            # x will be read on the consumer: its free, when x is dropped,
            # must wait for what the consumer has queued by then.
            x.record_stream(consumer)
            filled.record()
        filled.wait(consumer)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
        del x
    torch.cuda.current_stream().wait_stream(consumer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    peak_alloc = torch.cuda.max_memory_allocated() >> 20
    peak_res = torch.cuda.max_memory_reserved() >> 20
    print(f"torch: peak allocated {peak_alloc} MiB, peak reserved {peak_res} MiB")
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
