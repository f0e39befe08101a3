# kind: wrong (shows only when PYTORCH_CUDA_ALLOC_CONF is already set in the environment, e.g. to expandable_segments:True: the native backend runs)
# mistake: TODO 1 uses os.environ.setdefault, so a variable already set (for another option) is kept and the backend stays native
# why it is wrong: any PYTORCH_CUDA_ALLOC_CONF given by the shell or a job script leaves PyTorch on its own cache; the allocator's calls are then cudaMalloc segments, and the backend line says native
# source: pytorch/pytorch#104801 (the backend variable set in the wrong place leaves a different backend than asked), invoke-ai/InvokeAI#7673 (the variable set by a config of its own)
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
os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync")

import torch  # noqa: E402

N = 4 << 20  # floats per batch: 16 MiB

DEPTH = 2  # batches whose tensors are still held after their sum was queued


def pipeline(batches, sums):
    """Fills sums[b] with the sum of 2 * (b + 1) over N elements, for each
    batch b, the fill on one stream and the doubling and sum on another.
    Nothing here may wait on the host: the streams run side by side."""
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    # sums was made and zeroed on the default stream.
    consumer.wait_stream(torch.cuda.current_stream())
    held = []  # (tensor, event recorded on the consumer after its read)

    def let_go():
        # The oldest batch: the producer waits for its read, then drops
        # the last reference (x was allocated on the producer, and is
        # freed in its order).
        x, read = held.pop(0)
        producer.wait_event(read)
        del x

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
        held.append((x, read))
        del x
        while len(held) > DEPTH:
            let_go()
    while held:
        let_go()
    torch.cuda.current_stream().wait_stream(consumer)
    torch.cuda.current_stream().wait_stream(producer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    stats = torch.cuda.memory_stats()
    peak_a = stats.get("allocated_bytes.all.peak", torch.cuda.max_memory_allocated())
    peak_r = stats.get("reserved_bytes.all.peak", torch.cuda.max_memory_reserved())
    print(f"torch: peak allocated {peak_a >> 20} MiB, peak reserved {peak_r >> 20} MiB")
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
