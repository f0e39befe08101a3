STUDENT = "exercises/day077/handoff.py"
DIR = "python-handoff"
EXT = "py"
COMMENT = "#"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync set before torch is imported; both streams wait for the default stream (sums) first; per batch x is made on the producer, the consumer waits for the producer, doubles and sums on itself, x.record_stream(consumer) before del x; the default stream waits for the consumer at the end; release prints max_memory_allocated/max_memory_reserved and calls empty_cache.",
    "why it is wrong": "it is not: the design the lesson asks for (day077, \"Streams in Python\").",
    "source": "own (lesson day077; PyTorch CUDA semantics notes on streams and record_stream)",
}
CORRECT = [
("""# segments.
# TODO: write this part
""", """# segments.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
"""),
("""    # still read it.
    # TODO: write this part
""", """    # still read it.
    default = torch.cuda.current_stream()
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    # sums was made (and zeroed) on the default stream.
    producer.wait_stream(default)
    consumer.wait_stream(default)
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.full((N,), float(b + 1), dtype=torch.float32, device="cuda")
        consumer.wait_stream(producer)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
        x.record_stream(consumer)  # its block waits for the consumer's read
        del x
    default.wait_stream(consumer)  # the caller reads sums on the default stream
"""),
("""    # what the allocator holds and no tensor uses.
    # TODO: write this part
""", """    # what the allocator holds and no tensor uses.
    print(f"torch: peak allocated {torch.cuda.max_memory_allocated() >> 20} MiB, "
          f"peak reserved {torch.cuda.max_memory_reserved() >> 20} MiB")
    torch.cuda.empty_cache()
"""),
]

WRONG = [
    ("synchronize-instead-of-join", {
        "kind": "a host wait where the lesson forbids it",
        "mistake": "at the end of pipeline the host waits for the device (torch.cuda.synchronize()) instead of making the default stream wait for the consumer.",
        "why it is wrong": "pipeline's docstring: \"Nothing here may wait on the host\"; the lesson asks that the default stream \"is in the order too\" (a stream wait, default.wait_stream(consumer)). The sums are right: the host wait orders everything.",
        "source": "own (torch.cuda.synchronize() is the common answer in PyTorch forum threads on multi-stream races)",
    }, [
        ("    default.wait_stream(consumer)  # the caller reads sums on the default stream\n",
         "    torch.cuda.synchronize()  # every stream done before the caller reads sums\n"),
    ]),
    ("keep-all-alive", {
        "kind": "waste: every batch's tensor kept to the end (live memory grows with the batches)",
        "mistake": "to be safe from the free race, the producer keeps every batch's tensor in a list and drops them all at the end, after the producer waited for the consumer.",
        "why it is wrong": "ordered, so the sums are right, but the producer is to let go of each tensor \"once it has handed it on\" (the module docstring): live memory is batches x 16 MiB instead of a few tensors, which the lesson's checks count (\"how much memory was live at once\"); the printed peak is a figure the student has nothing to compare with. The lesson's \"keep the array alive\" is CuPy's answer for one array, not for all of them.",
        "source": "own (the lesson's CuPy advice \"keep the array alive\" applied to the whole loop)",
    }, [
        ("""    for b in range(batches):
        with torch.cuda.stream(producer):""", """    kept = []
    for b in range(batches):
        with torch.cuda.stream(producer):"""),
        ("""        x.record_stream(consumer)  # its block waits for the consumer's read
        del x
    default.wait_stream(consumer)""", """        kept.append(x)  # alive until every read is done
        del x
    producer.wait_stream(consumer)
    kept.clear()
    default.wait_stream(consumer)"""),
    ]),
    ("sums-before-zeroed", {
        "kind": "race that happens not to corrupt (use of memory before its allocation is ordered)",
        "mistake": "the streams never wait for the default stream at the start: the consumer writes sums[b] though sums was allocated and zeroed on the default stream.",
        "why it is wrong": "PyTorch's side streams are non-blocking, so they are not ordered after the legacy default stream; sums is ready in the default stream's order only (lesson \"Streams in Python\": \"a tensor made inside the block is ready in s's order, and work on another stream that uses it must wait for s first\"). The zeroing kernel has long finished by the time the first batch is summed, so the sums print right.",
        "source": "the same mistake caught in review: https://github.com/flashinfer-ai/flashinfer/pull/5027 (tensors initialised on the default stream, used on a new side stream without wait_stream); PyTorch's CUDA semantics note, \"CUDA streams\"",
    }, [
        ("""    # sums was made (and zeroed) on the default stream.
    producer.wait_stream(default)
    consumer.wait_stream(default)
""", ""),
    ]),
    ("alloc-outside-with", {
        "kind": "race that happens not to corrupt (a tensor allocated on one stream, written on another)",
        "mistake": "x is allocated with torch.empty outside the producer's with-block (on the default stream) and only filled inside it.",
        "why it is wrong": "x's memory comes from the default stream's order, so the producer's fill is not ordered after its allocation (nor after the previous batch's free that the pool reuses); the free at del also follows the default stream (lesson \"Streams in Python\": \"y's memory comes from s's order\"; a block is free \"in the order of the stream that allocated it\"). On a fast GPU the previous reads are over when the fill runs.",
        "source": "own (a with-block around the compute but not the allocation, as in many PyTorch forum snippets)",
    }, [
        ("""        with torch.cuda.stream(producer):
            x = torch.full((N,), float(b + 1), dtype=torch.float32, device="cuda")""",
         """        x = torch.empty((N,), dtype=torch.float32, device="cuda")
        with torch.cuda.stream(producer):
            x.fill_(float(b + 1))"""),
    ]),
]
