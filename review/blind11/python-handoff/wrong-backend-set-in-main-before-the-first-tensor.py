# kind: wrong (the program's own output: the backend line says native (or torch stops at its first CUDA call with a backend mismatch); the record has no cudaMallocAsync)
# mistake: PYTORCH_CUDA_ALLOC_CONF is set at the top of main(), before sums, the first tensor, is made, on the reading that the setting is read 'before the first allocation'; torch was imported at the top of the file
# why it is wrong: PyTorch picks its allocator backend when its CUDA library is loaded, at import torch; a backend set later is not used (older releases stop at the first CUDA call with 'allocator backend parsed at runtime != allocator backend parsed at load time'), so the pipeline runs on PyTorch's own cache and CUDA's pool never sees a call
# source: pytorch/pytorch#104801
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
# segments. Done in main(), before the first tensor is made.

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
            x = torch.full((N,), float(b + 1), dtype=torch.float32, device="cuda")
            filled = torch.cuda.Event()
            filled.record(producer)
        consumer.wait_event(filled)
        with torch.cuda.stream(consumer):
            sums[b] = torch.mul(x, 2.0).sum(dtype=torch.float64)
            read = torch.cuda.Event()
            read.record(consumer)
        # x is freed in the producer's order: put the consumer's read
        # before it there, then let go of it at once.
        producer.wait_event(read)
        del x
    # main reads sums on the default stream.
    torch.cuda.current_stream().wait_event(consumer.record_event())


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    st = torch.cuda.memory_stats()
    peak_a = st.get("allocated_bytes.all.peak", 0) >> 20
    peak_r = st.get("reserved_bytes.all.peak", 0) >> 20
    print(f"torch: peak allocated {peak_a} MiB, peak reserved {peak_r} MiB")
    torch.cuda.empty_cache()
    print(f"torch: reserved now {torch.cuda.memory_reserved() >> 20} MiB")


def main():
    conf = [o for o in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "").split(",")
            if o.strip() and not o.strip().startswith("backend:")]
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ",".join(["backend:cudaMallocAsync"] + conf)
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
