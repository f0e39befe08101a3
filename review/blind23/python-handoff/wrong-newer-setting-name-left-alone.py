# kind: wrong (other environments only: with PYTORCH_ALLOC_CONF set (e.g. to expandable_segments:True or backend:native), which recent PyTorch reads before PYTORCH_CUDA_ALLOC_CONF, the first line says 'allocator backend: native' and nothing comes from cudaMallocAsync; with it unset, every line right)
# mistake: TODO 1 rewrites PYTORCH_CUDA_ALLOC_CONF only, 'the CUDA allocator's own variable', and leaves PYTORCH_ALLOC_CONF as it is
# why it is wrong: when both names are set PyTorch takes its settings from PYTORCH_ALLOC_CONF and ignores the older name, so a backend entry (or the lack of one) there wins over the rewritten CUDA one
# source: related: pytorch/torchtitan#1577 (PYTORCH_ALLOC_CONF, the newer name, to be used in place of PYTORCH_CUDA_ALLOC_CONF)
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
def _async_backend(setting):
    """The setting with every backend entry replaced by one, first."""
    kept = [e.strip() for e in setting.split(",") if e.strip() and e.split(":")[0].strip() != "backend"]
    return ",".join(["backend:cudaMallocAsync"] + kept)


for _name in ("PYTORCH_CUDA_ALLOC_CONF",):
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
    main = torch.cuda.current_stream()
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    consumer.wait_stream(main)  # sums was made and zeroed there
    events = [torch.cuda.Event(), torch.cuda.Event()]
    for b in range(batches):
        filled = events[b % 2]
        with torch.cuda.stream(producer):
            x = torch.full((N,), float(b + 1), dtype=torch.float32, device="cuda")
            filled.record(producer)
        with torch.cuda.stream(consumer):
            consumer.wait_event(filled)
            sums[b] = x.mul_(2).sum(dtype=torch.float64)
            x.record_stream(consumer)
        del x
    main.wait_stream(consumer)


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
