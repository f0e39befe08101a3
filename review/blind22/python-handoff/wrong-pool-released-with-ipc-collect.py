# kind: wrong (the record: the pool's memory held at the end (nothing trimmed); the last line 'reserved now' not 0)
# mistake: release hands memory back with torch.cuda.ipc_collect() instead of torch.cuda.empty_cache()
# why it is wrong: ipc_collect only releases memory other processes shared through CUDA IPC and have let go of; what the allocator holds for this process stays reserved
# source: related: RLinf/RLinf#931
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
def _async_backend_conf():
    """The allocator setting PyTorch would read, with backend:cudaMallocAsync
    in place of any backend entry (first), the other entries kept in order."""
    conf = os.environ.get("PYTORCH_ALLOC_CONF")
    if conf is None:
        conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    kept = []
    for entry in conf.split(","):
        entry = entry.strip()
        if not entry or entry.split(":", 1)[0].strip() == "backend":
            continue
        kept.append(entry)
    return ",".join(["backend:cudaMallocAsync"] + kept)


_CONF = _async_backend_conf()
os.environ["PYTORCH_ALLOC_CONF"] = _CONF
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = _CONF

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
    # sums was made and zeroed on the default stream.
    consumer.wait_event(torch.cuda.current_stream().record_event())
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
        filled = producer.record_event()
        with torch.cuda.stream(consumer):
            consumer.wait_event(filled)
            sums[b] = torch.sum(x * 2, dtype=torch.float64)
            # x's free, when it is dropped, must also wait for this read.
            x.record_stream(consumer)
        del x
    # main reads sums on the default stream.
    torch.cuda.current_stream().wait_stream(consumer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    print(f"torch: peak allocated {torch.cuda.max_memory_allocated() >> 20} MiB, "
          f"peak reserved {torch.cuda.max_memory_reserved() >> 20} MiB")
    torch.cuda.ipc_collect()
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
