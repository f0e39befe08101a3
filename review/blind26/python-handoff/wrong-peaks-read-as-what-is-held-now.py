# kind: wrong (the program's own output: the peaks line prints what is held now ('peak allocated 0 MiB, peak reserved ...' the pool's current figure), not the high-water marks)
# mistake: release reads torch.cuda.memory_allocated() and torch.cuda.memory_reserved() for the two peaks
# why it is wrong: those are the current figures: after the pipeline and the drop of sums no tensor holds anything, so the allocated 'peak' is 0 MiB instead of the 16 MiB tensors the batches held together; the peaks are max_memory_allocated and max_memory_reserved (or the .peak keys of memory_stats)
# source: MakazhanAlpamys/Soup#650 (memory_allocated() reported where the peak, max_memory_allocated(), was meant)
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
    """The setting with every backend entry taken out and the stream-ordered
    backend put first; the other entries are kept as they were."""
    kept = [e for e in setting.split(",")
            if e.strip() and e.split(":", 1)[0].strip() != "backend"]
    return ",".join(["backend:cudaMallocAsync"] + kept)


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
    #
    # No record_stream: the producer keeps the last DEPTH batches' tensors
    # with the event the consumer recorded behind its read of each, and lets
    # a tensor go only after it has queued a wait for that event, so the
    # free (in the producer's order, where x was allocated) comes after the
    # read. The default stream made sums: the consumer starts behind it,
    # and it ends behind the consumer.
    DEPTH = 3
    main_stream = torch.cuda.current_stream()
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    zeroed = torch.cuda.Event()
    zeroed.record(main_stream)
    consumer.wait_event(zeroed)
    held = []  # (x, the event behind the consumer's read of it), oldest first
    for b in range(batches):
        filled = torch.cuda.Event()
        with torch.cuda.stream(producer):
            x = torch.full((N,), float(b + 1), dtype=torch.float32, device="cuda")
            filled.record(producer)
        read = torch.cuda.Event()
        with torch.cuda.stream(consumer):
            consumer.wait_event(filled)
            y = x * 2
            sums[b] = y.sum(dtype=torch.float64)
            del y
            read.record(consumer)
        held.append((x, read))
        del x
        if len(held) > DEPTH:
            old, old_read = held.pop(0)
            producer.wait_event(old_read)
            del old
    for old, old_read in held:
        producer.wait_event(old_read)
    held.clear()
    main_stream.wait_stream(consumer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    peak_allocated = torch.cuda.memory_allocated() >> 20
    peak_reserved = torch.cuda.memory_reserved() >> 20
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
