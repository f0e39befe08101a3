STUDENT = "exercises/day077/handoff.py"
DIR = "python-handoff"
EXT = "py"
COMMENT = "#"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. Streams ordered with wait_stream, not events: the consumer waits
    for the default stream once (sums), then for the producer after each fill;
    each tensor is marked with x.record_stream(consumer) before it is dropped
    (the lesson's PyTorch answer: the cudaMallocAsync backend then frees it on
    a stream of its own that waits for both); the default stream waits for the
    consumer at the end. The peaks read with torch.cuda.max_memory_allocated()
    and max_memory_reserved(), then torch.cuda.empty_cache().""",
    why="""it is not: each read is queued after the fill it needs, each free is
    ordered after the consumer's read by the allocator, the default stream reads
    sums after the consumer, and nothing waits on the host.""",
    source="""own design from the lesson (day 77, "Streams in Python", "Exercise:
    python-handoff"); the PyTorch reference of torch.Tensor.record_stream and
    torch.cuda.Stream.wait_stream.""")

CORRECT = [
("""# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
# TODO: write this part
""",
"""# The allocator's backend is read once, when torch loads: set it first.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
"""),
("""    # TODO 2: make the two streams; for each batch, allocate and fill x on
    # the producer, double and sum it on the consumer into sums[b], and
    # drop x. The consumer must not read x before the producer wrote it,
    # and x's memory must not be handed out again while the consumer may
    # still read it.
    # TODO: write this part
""",
"""    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    default = torch.cuda.current_stream()
    consumer.wait_stream(default)  # sums was made and zeroed there
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(float(b + 1))
        consumer.wait_stream(producer)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
        x.record_stream(consumer)
        del x
    default.wait_stream(consumer)
"""),
("""    # TODO 3: print the two peaks from PyTorch's counters, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    # TODO: write this part
""",
"""    allocated = torch.cuda.max_memory_allocated() >> 20
    reserved = torch.cuda.max_memory_reserved() >> 20
    print(f"torch: peak allocated {allocated} MiB, peak reserved {reserved} MiB")
    torch.cuda.empty_cache()
"""),
]

WRONG = [
("alloc-conf-set-after-import", dict(
    kind="too late: the allocator's configuration set after torch is imported",
    mistake="""the script sets PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync in main(),
    after `import torch`, instead of before it.""",
    why="""PyTorch parses the backend when it loads and again when CUDA starts; set
    in between, the two disagree and CUDA's initialisation fails (an internal
    assert, "Allocator backend parsed at runtime != allocator backend parsed at
    load time"), or, where it does not, the native cache is used and none of the
    tensors come from cudaMallocAsync.""",
    source="""pytorch/pytorch#104801 ("You are most likely setting the config too late,
    i.e. after importing torch": the INTERNAL ASSERT about the allocator backend
    parsed at runtime and at load time)."""),
 [("""# The allocator's backend is read once, when torch loads: set it first.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
""", ""),
  ("""    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 12
""",
   """    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 12
""")]),
("record-stream-on-current", dict(
    kind="the wrong stream: record_stream given the stream that allocated the tensor",
    mistake="""x.record_stream is called inside the producer's `with` block with
    torch.cuda.current_stream(), the producer itself, meaning "the stream in use
    here", instead of the consumer that reads x.""",
    why="""recording the allocating stream tells the allocator nothing it did not
    know: the drop frees x in the producer's order only, so the next batch's
    tensor can take x's memory while the consumer's doubling and sum are still
    queued behind it.""",
    source="""NVIDIA/cudnn-frontend#1183 (review: record_streams() skipped
    tensor.record_stream() when the given stream was torch's current stream,
    "This prevents the caching allocator from learning that a tensor is needed
    on that stream"); meta-pytorch/torchrec#4231 (a missing record_stream let
    the allocator reuse memory under an in-flight side-stream copy)."""),
 [("""            x.fill_(float(b + 1))
        consumer.wait_stream(producer)""",
   """            x.fill_(float(b + 1))
            x.record_stream(torch.cuda.current_stream())
        consumer.wait_stream(producer)"""),
  ("""        x.record_stream(consumer)
        del x""",
   """        del x""")]),
("wait-queued-before-fill", dict(
    kind="ordering: the consumer's wait queued before the work it is meant to wait for",
    mistake="""the consumer's wait_stream(producer) is made at the top of each batch,
    before the producer's allocation and fill are queued, as if it waited for
    whatever the producer will do.""",
    why="""wait_stream orders the consumer after the work queued on the producer SO
    FAR: this batch's fill comes later, so the consumer may double and sum x
    before (or while) it is filled, and the sums come out wrong.""",
    source="""sgl-project/sglang#14214 ("for the scenarios where the record happens
    later than the wait": a torch event waited for on one stream before it is
    recorded on the other)."""),
 [("""    for b in range(batches):
        with torch.cuda.stream(producer):""",
   """    for b in range(batches):
        consumer.wait_stream(producer)
        with torch.cuda.stream(producer):"""),
  ("""            x.fill_(float(b + 1))
        consumer.wait_stream(producer)
        with torch.cuda.stream(consumer):""",
   """            x.fill_(float(b + 1))
        with torch.cuda.stream(consumer):""")]),
]
