# kind: wrong (the program's own output: the peaks line shows what is held now (0 MiB allocated after the sums were dropped), not the high-water marks)
# mistake: memory_allocated() and memory_reserved() printed on the peak line instead of max_memory_allocated() and max_memory_reserved().
# why it is wrong: at release every tensor is gone, so the current figures are 0 or what the pool still caches; the peak the pipeline reached (two or three 16 MiB tensors) is never reported.
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

def _with_async_backend(conf):
    """The allocator options with backend set to cudaMallocAsync, every
    other option kept in its place."""
    opts = {}
    for part in conf.split(","):
        part = part.strip()
        if not part:
            continue
        key, _, value = part.partition(":")
        opts[key.strip()] = value.strip()
    opts["backend"] = "cudaMallocAsync"
    return ",".join(f"{k}:{v}" for k, v in opts.items())


os.environ["PYTORCH_CUDA_ALLOC_CONF"] = _with_async_backend(os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""))

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
    consumer.wait_stream(default)  # sums was zeroed there
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
        consumer.wait_stream(producer)
        with torch.cuda.stream(consumer):
            sums[b] = torch.sum(x, dtype=torch.float64) * 2.0
        x.record_stream(consumer)
        del x
    default.wait_stream(consumer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    peak_alloc = torch.cuda.memory_allocated() >> 20
    peak_reserved = torch.cuda.memory_reserved() >> 20
    print(f"torch: peak allocated {peak_alloc} MiB, peak reserved {peak_reserved} MiB")
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
