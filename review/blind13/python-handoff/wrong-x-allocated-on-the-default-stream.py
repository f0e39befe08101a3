# kind: wrong (the record: x's allocation and free are in the default stream's order, the producer's fill and the consumer's read are not ordered after the allocation; a use before its allocation was ordered and a free while another stream reads; the sums now and then)
# mistake: x is made with torch.empty before the producer's with block ("allocate, then hand the fill to the producer"), so the caching allocator files it under the default stream
# why it is wrong: PyTorch's allocator knows only the stream x was made on: the default stream, which waits for neither side stream; the producer writes memory whose allocation it is not ordered after, and the drop frees it in the default stream's order while the consumer may still read
# source: ROCm/pytorch#3194 (a side stream and the default stream unordered), pytorch/pytorch#112526 (the allocator knows only the stream of origin)
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
_conf = [kv for kv in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "").split(",")
         if kv.strip() and kv.split(":", 1)[0].strip() != "backend"]
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ",".join(["backend:cudaMallocAsync"] + _conf)

import torch  # noqa: E402

N = 4 << 20  # floats per batch: 16 MiB

LAG = 2  # batches a tensor is kept after its read was queued


def pipeline(batches, sums):
    """Fills sums[b] with the sum of 2 * (b + 1) over N elements, for each
    batch b, the fill on one stream and the doubling and sum on another.
    Nothing here may wait on the host: the streams run side by side."""
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    # sums was zeroed on the default stream: the consumer writes into it.
    consumer.wait_stream(torch.cuda.current_stream())
    held = []  # (tensor, the event after its read), oldest first
    for b in range(batches):
        filled = torch.cuda.Event()
        x = torch.empty(N, dtype=torch.float32, device="cuda")
        with torch.cuda.stream(producer):
            x.fill_(float(b + 1))
            filled.record(producer)
        read = torch.cuda.Event()
        with torch.cuda.stream(consumer):
            consumer.wait_event(filled)
            sums[b] = torch.sum(x, dtype=torch.float64) * 2.0
            read.record(consumer)
        held.append((x, read))
        del x
        while len(held) > LAG:
            old, done = held.pop(0)
            # the free comes in the producer's order: after this wait
            producer.wait_event(done)
            del old
    for _, done in held:
        producer.wait_event(done)
    held.clear()  # the last tensors go, each free after its read
    torch.cuda.current_stream().wait_stream(consumer)


def release():
    """The pipeline is over: print PyTorch's own peaks (what tensors held
    at most, and what the allocator held at most), then give the pool's
    memory back to the device, for the other processes on this GPU."""
    a = torch.cuda.max_memory_allocated() >> 20
    r = torch.cuda.max_memory_reserved() >> 20
    print(f"torch: peak allocated {a} MiB, peak reserved {r} MiB")
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
