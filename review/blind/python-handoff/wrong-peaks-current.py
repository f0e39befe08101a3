# kind: current figures printed as peaks (output shows only figures)
# mistake: release prints torch.cuda.memory_allocated() and torch.cuda.memory_reserved() as the two peaks: the student takes the current figures for the peaks, the function names differing only by 'max_'.
# why it is wrong: Both are what is held now, after the pipeline, with sums dropped: allocated is 0 and reserved is what the pool keeps (PyTorch sets its release threshold to the maximum), not the most the tensors and the pool held during the batches. The line has the asked shape and plausible numbers, so only a reader who knows what the peaks must be sees it.
# source: https://runebook.dev/en/docs/pytorch/generated/torch.cuda.max_memory_cached (the current and the high-water figures confused)
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

# PyTorch reads this once, when it first touches CUDA's memory: it must be
# set before that, and setting it before the import is the safe place.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"

import torch  # noqa: E402

N = 4 << 20  # floats per batch: 16 MiB


def pipeline(batches, sums):
    """Fills sums[b] with the sum of 2 * (b + 1) over N elements, for each
    batch b, the fill on one stream and the doubling and sum on another.
    Nothing here may wait on the host: the streams run side by side."""
    home = torch.cuda.current_stream()  # made sums, and reads it after us
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    consumer.wait_stream(home)  # sums was zeroed there
    # Tensors the consumer may still read, each with the event recorded on
    # the consumer after its read. A tensor is freed in its producer's
    # order when its last reference goes, so the producer first waits for
    # that event; one batch stays in flight so that the producer can fill
    # the next one while the consumer reads.
    in_flight = []
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.full((N,), float(b + 1), device="cuda")
        filled = torch.cuda.Event()
        filled.record(producer)
        consumer.wait_event(filled)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
        read = torch.cuda.Event()
        read.record(consumer)
        in_flight.append((x, read))
        del x
        while len(in_flight) > 1:
            old, old_read = in_flight.pop(0)
            producer.wait_event(old_read)
            del old  # its cudaFreeAsync, on the producer, now follows the read
    while in_flight:
        old, old_read = in_flight.pop(0)
        producer.wait_event(old_read)
        del old
    home.wait_stream(consumer)  # sums is read on the default stream next


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    peak_allocated = torch.cuda.memory_allocated()
    peak_reserved = torch.cuda.memory_reserved()
    print(f"torch: peak allocated {peak_allocated >> 20} MiB, peak reserved {peak_reserved >> 20} MiB")
    torch.cuda.empty_cache()  # with cudaMallocAsync: trims the device's pool
    print(f"torch: reserved now {torch.cuda.memory_reserved() >> 20} MiB")


def main():
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    print("allocator backend:", torch.cuda.get_allocator_backend())
    sums = torch.zeros(batches, dtype=torch.float64, device="cuda")
    pipeline(batches, sums)
    got = sums.tolist()
    ok = sum(1 for b, g in enumerate(got) if g == 2.0 * (b + 1) * N)
    print(f"sums: {ok} of {batches} correct")
    del sums
    release()


if __name__ == "__main__":
    main()
