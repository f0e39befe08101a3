import sys; sys.path.insert(0, "gen-b")
from fill import fill
H = ["kind: correct",
     "mistake: none. Design: ONE setting written to BOTH names (PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF) before the import, built from the entries of the name PyTorch reads first (PYTORCH_ALLOC_CONF when set, else PYTORCH_CUDA_ALLOC_CONF), empty and backend entries dropped, backend:cudaMallocAsync first; each batch's order by an event the producer stream makes itself (Stream.record_event after the fill) and the consumer waits for (Stream.wait_event); the consumer's wait on the default stream (the zeroed sums) also by such an event, once; x marked with record_stream(consumer) inside the consumer's block after its read is queued, then dropped; the sum taken in float64; the default stream waits for the consumer (wait_stream) at the end",
     "why it is wrong: -",
     "source: own"]
E = [("""# segments.
# TODO: write this part
""", """# segments.
def _async_backend_conf():
    \"\"\"The allocator setting PyTorch would read, with backend:cudaMallocAsync
    in place of any backend entry (first), the other entries kept in order.\"\"\"
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
"""),
("""    # still read it.
    # TODO: write this part
""", """    # still read it.
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
"""),
("""    # what the allocator holds and no tensor uses.
    # TODO: write this part
""", """    # what the allocator holds and no tensor uses.
    print(f"torch: peak allocated {torch.cuda.max_memory_allocated() >> 20} MiB, "
          f"peak reserved {torch.cuda.max_memory_reserved() >> 20} MiB")
    torch.cuda.empty_cache()
"""),
]
fill("/work/main/exercises/day077/handoff.py", "python-handoff/correct.py", H, E, comment="#")
