from lib import build

S = "exercises/day077/handoff.py"

R = [
("""# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
# TODO: write this part
""",
"""# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
def _async_backend(value):
    \"\"\"value's settings with every backend entry dropped and
    backend:cudaMallocAsync put first.\"\"\"
    kept = []
    for entry in value.split(","):
        entry = entry.strip()
        if entry and entry.split(":", 1)[0].strip() != "backend":
            kept.append(entry)
    return ",".join(["backend:cudaMallocAsync"] + kept)


# Read when torch first touches CUDA: the older name always, the newer one
# too when it is set (it is read before the older one).
for _name in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"):
    if _name == "PYTORCH_CUDA_ALLOC_CONF" or _name in os.environ:
        os.environ[_name] = _async_backend(os.environ.get(_name, ""))
"""),
("""    # still read it.
    # TODO: write this part
""",
"""    # still read it.
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    # sums was zeroed on the default stream: the consumer, which writes
    # it, comes after that once, before the first batch.
    consumer.wait_stream(torch.cuda.current_stream())
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, device="cuda")
            x.fill_(b + 1)
        filled = producer.record_event()
        with torch.cuda.stream(consumer):
            filled.wait(consumer)
            # Doubled in place: no second 16 MiB tensor a batch.
            x.mul_(2)
            sums[b] = x.sum(dtype=torch.float64)
            # x was made on the producer: its memory is free again only
            # once the consumer's work queued so far is done.
            x.record_stream(consumer)
        del x
    # The default stream reads sums after the pipeline.
    torch.cuda.current_stream().wait_stream(consumer)
"""),
("""    # what the allocator holds and no tensor uses.
    # TODO: write this part
""",
"""    # what the allocator holds and no tensor uses.
    allocated = torch.cuda.max_memory_allocated() >> 20
    reserved = torch.cuda.max_memory_reserved() >> 20
    print(f"torch: peak allocated {allocated} MiB, peak reserved {reserved} MiB")
    torch.cuda.empty_cache()
"""),
]

DESIGN = ("both setting names (PYTORCH_CUDA_ALLOC_CONF always, PYTORCH_ALLOC_CONF when set) rebuilt before the import "
          "with every backend entry dropped and backend:cudaMallocAsync put first; the consumer joins the default "
          "stream ONCE before the loop and the default stream joins the consumer ONCE after it; each batch's x made "
          "with empty and fill_ on the producer, a fresh event from producer.record_event() after the block, "
          "Event.wait(consumer) inside the consumer block; the consumer doubles x IN PLACE (x.mul_(2): one 16 MiB "
          "allocation a batch, not two) and sums it in float64 straight into sums[b]; x.record_stream(consumer) then "
          "del x; release prints the two peaks and calls empty_cache")

WRONGS = [
    ("fill-dedented-out-of-the-producer-block",
     "a race: the record (the fill runs on the default stream, not ordered after x's allocation on the producer nor "
     "before the consumer's read); the sums now and then",
     "x.fill_ is written one level out, after the producer's with block, so it runs on the default stream; the "
     "producer's event then covers only the allocation",
     "the consumer waits for the producer's event, which no longer comes after the fill; and x is used by a stream "
     "that neither allocated it nor was recorded on it",
     "own",
     [("            x = torch.empty(N, device=\"cuda\")\n            x.fill_(b + 1)\n",
       "            x = torch.empty(N, device=\"cuda\")\n        x.fill_(b + 1)\n")]),
    ("fill-event-wait-given-the-producer-stream",
     "a race: the record at every batch (the consumer's read and in-place doubling not ordered after the fill); the "
     "sums now and then, the default run usually winning",
     "the fill event's wait is called as filled.wait(producer), taking the argument for the stream to wait FOR",
     "Event.wait(stream) makes that stream wait for the event; the producer waiting for its own event orders "
     "nothing, and the consumer runs unordered with the fill",
     "own",
     [("            filled.wait(consumer)\n", "            filled.wait(producer)\n")]),
    ("final-join-made-inside-the-consumer-block",
     "a race: the record (the default stream reads sums with no wait for the consumer's last writes); the sums "
     "line now and then, the default run usually winning",
     "the default stream's wait for the consumer is written inside the consumer's with block of every batch, where "
     "torch.cuda.current_stream() is the consumer itself",
     "consumer.wait_stream(consumer) orders nothing: the default stream, which builds the expected values and "
     "compares them with sums, is never made to wait for the consumer",
     "own",
     [("            x.record_stream(consumer)\n        del x\n    # The default stream reads sums after the pipeline.\n    torch.cuda.current_stream().wait_stream(consumer)\n",
       "            x.record_stream(consumer)\n            # The default stream reads sums after the pipeline.\n            torch.cuda.current_stream().wait_stream(consumer)\n        del x\n")]),
    ("batch-made-on-the-cpu-and-moved",
     "the record: a host wait at every batch (the copy from pageable host memory synchronises the producer); every "
     "printed line right",
     "each batch's tensor is made on the CPU and moved with .cuda() inside the producer block",
     "a copy from pageable memory with non_blocking False makes PyTorch synchronise the stream after it: the host "
     "waits at every batch, which the pipeline forbids",
     "pytorch/pytorch#135794 (tensor.cuda() synchronises in copy_ unless non_blocking from pinned memory)",
     [("            x = torch.empty(N, device=\"cuda\")\n            x.fill_(b + 1)\n",
       "            x = torch.full((N,), float(b + 1)).cuda()\n")]),
]


def rows():
    return build("python-handoff", S, "py", R, DESIGN, WRONGS)
