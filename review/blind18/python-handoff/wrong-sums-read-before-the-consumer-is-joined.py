# kind: wrong (race: the record (the comparison on the default stream reads sums, and main frees them, with nothing ordering either after the consumer's writes); the sums line now and then short (a batch still being summed when the comparison runs))
# mistake: the last line of pipeline, main_stream.wait_stream(consumer), is left out: the student thought the consumer's work was done once pipeline returned
# why it is wrong: pipeline returns on the host at once; main's want and the comparison run on the default stream, which never waits for the consumer, so they may read sums before the last batches' sums are written, and del sums frees memory the consumer may still write
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

# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
# TODO: write this part
_opts = {}
for _item in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "").split(","):
    _item = _item.strip()
    if _item:
        _name, _, _value = _item.partition(":")
        _opts[_name.strip()] = _value.strip()
_opts["backend"] = "cudaMallocAsync"
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ",".join(f"{k}:{v}" for k, v in _opts.items())

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
    # TODO: write this part
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    main_stream = torch.cuda.current_stream()
    # sums was allocated and zeroed on the default stream.
    consumer.wait_stream(main_stream)
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(float(b + 1))
        # The consumer comes after the fill just queued (and x's allocation).
        consumer.wait_stream(producer)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
        # x's free, in the producer's order, must come after the read.
        x.record_stream(consumer)
        del x


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    # TODO: write this part
    print(f"torch: peak allocated {torch.cuda.max_memory_allocated() >> 20} MiB, "
          f"peak reserved {torch.cuda.max_memory_reserved() >> 20} MiB")
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
