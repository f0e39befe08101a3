STUDENT = "exercises/day077/handoff.py"
DIR = "python-handoff"
EXT = "py"
COMMENT = "#"
CORRECT_HEADER = {
    "kind": "correct",
    "mistake": "none: events instead of wait_stream and instead of record_stream: the consumer waits for a `filled` event recorded on the producer after each fill; each batch's tensor is kept one batch longer and dropped only after the producer stream waited for a `read` event the consumer recorded after its sum (the lesson's \"Making the allocating stream wait for the reader before the reference is dropped\"), the last one after the loop the same way; the consumer waits for the default stream before its first write into sums, and the default stream waits for the consumer at the end; the peaks read from torch.cuda.memory_stats() (the lesson's keys), then torch.cuda.empty_cache().",
    "why it is wrong": "it is not: the lesson says \"there is more than one right way: choose yours\" and names the wait the other way as correct. Keeping the tensor one batch longer lets the producer fill batch b + 1 while the consumer still reads batch b: the producer's wait is for the read of the batch before.",
    "source": "own design; the PyTorch CUDA semantics notes (\"CUDA streams\") and the reference of torch.cuda.Event (record, wait) and torch.Tensor.record_stream (\"you may consider instead manually managing\" the lifetime)",
}
CORRECT = [
("""# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
# TODO: write this part
""", """# Read once, when PyTorch first touches CUDA's memory: set before the
# import, whatever the shell had.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
"""),
("""    # TODO 2: make the two streams; for each batch, allocate and fill x on
    # the producer, double and sum it on the consumer into sums[b], and
    # drop x. The consumer must not read x before the producer wrote it,
    # and x's memory must not be handed out again while the consumer may
    # still read it.
    # TODO: write this part
""", """    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    # sums was zeroed on the default stream: the consumer writes it after.
    consumer.wait_stream(torch.cuda.current_stream())
    prev = None  # the batch before: (its tensor, the event after its read)
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
            filled = torch.cuda.Event()
            filled.record(producer)
        consumer.wait_event(filled)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
            read = torch.cuda.Event()
            read.record(consumer)
        if prev is not None:
            # x is free in the producer's order: the producer first comes
            # after the consumer's read of the batch before.
            producer.wait_event(prev[1])
        prev = (x, read)  # the batch before's tensor is dropped here
        del x, read
    producer.wait_event(prev[1])
    prev = None  # the last tensor, dropped after its read
    # The default stream reads sums at the end.
    torch.cuda.current_stream().wait_stream(consumer)
"""),
("""    # TODO 3: print the two peaks from PyTorch's counters, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    # TODO: write this part
""", """    st = torch.cuda.memory_stats()
    print(f"torch: peak allocated {st.get('allocated_bytes.all.peak', 0) >> 20} MiB, "
          f"peak reserved {st.get('reserved_bytes.all.peak', 0) >> 20} MiB")
    torch.cuda.empty_cache()
"""),
]

WRONG = [
    ("consumer-reads-unwaited", {
        "kind": "race (a Python stream handed over without the consumer waiting)",
        "mistake": "the consumer does not wait for the `filled` event: the student reads the `with` blocks as running one after the other.",
        "why it is wrong": "leaving the producer's with block waits for nothing (the lesson: \"Leaving the block does not wait for anything\"); x is ready only in the producer's order, so the consumer may double and sum memory the fill has not written yet: sums come out wrong now and then, and the record sees a use before the allocation is ordered.",
        "source": "vllm-project/vllm#13632 (\"ops later on which are running on the main/current stream might try to access the result tensors before this kernel is finished. This was causing incorrect results and NaN\"); pytorch/pytorch#2702",
    }, [
        ("""        consumer.wait_event(filled)
""", ""),
    ]),
    ("filled-recorded-before-fill", {
        "kind": "a misplaced event (recorded before the work it stands for)",
        "mistake": "the `filled` event is recorded on the producer right after torch.empty, before x.fill_.",
        "why it is wrong": "the consumer waits only for what the producer had queued before the record: the allocation, not the fill. The consumer may read x before the fill lands (the lesson: \"a tensor made inside the block is ready in s's order, and work on another stream that uses it must wait for s first\").",
        "source": "own (the Python form of the C++ mistake of recording an event before the launch it should follow)",
    }, [
        ("""            x.fill_(b + 1)
            filled = torch.cuda.Event()
            filled.record(producer)""", """            filled = torch.cuda.Event()
            filled.record(producer)
            x.fill_(b + 1)"""),
    ]),
    ("last-tensor-unwaited", {
        "kind": "a free too early, on the last batch only (off by one at the end of the loop)",
        "mistake": "after the loop the last tensor is dropped without the producer waiting for its read (\"the loop already waited for every batch\").",
        "why it is wrong": "inside the loop the producer waits for the read of the batch before; the last batch's read has no wait behind it: its memory goes back to the pool in the producer's order while the consumer may still read it, and the want tensor made next on the default stream may be handed the same memory.",
        "source": "torch.Tensor.record_stream's reference (\"if a tensor is used on a stream different from the stream of origin, the allocator might reuse the memory unexpectedly\"); NVIDIA/Megatron-LM#5788, a reported missing record_stream at a free, retracted when the ordering turned out to be one frame up: the same question, asked of each free",
    }, [
        ("""    producer.wait_event(prev[1])
    prev = None  # the last tensor, dropped after its read""", """    prev = None  # every batch's read was waited for in the loop"""),
    ]),
    ("poll-read-event", {
        "kind": "a host busy wait (polling an event) inside the loop",
        "mistake": "before dropping the batch before's tensor, the host spins on `while not read.query(): pass` instead of making the producer wait for the event.",
        "why it is wrong": "the numbers are right, but the host waits for the consumer at every batch (\"nothing in it may wait on the host\"; \"A right answer must not wait on the host inside the loop\"); a poll is a host wait no synchronize call shows.",
        "source": "pytorch/pytorch#60541 (\"When calling cuda kernel, the default is busy-waiting polling\"); triton-inference-server/server#1108 (\"Use busy-wait on CUDA event\")",
    }, [
        ("""            producer.wait_event(prev[1])
        prev = (x, read)""", """            while not prev[1].query():
                pass
        prev = (x, read)"""),
    ]),
    ("default-joins-too-early", {
        "kind": "ordering between streams (a join placed before the last work it must cover)",
        "mistake": "the default stream's wait for the consumer is made at the top of each batch, before that batch's sum is queued, instead of once after the loop.",
        "why it is wrong": "each wait covers the consumer's work queued so far, which never includes the last batch's sum: the default stream may compare sums while the last slot is still being written, and read it before it is right (the lesson: \"the default stream, which made sums and reads it at the end, is in the order too\").",
        "source": "own",
    }, [
        ("""    for b in range(batches):
        with torch.cuda.stream(producer):""", """    for b in range(batches):
        torch.cuda.current_stream().wait_stream(consumer)
        with torch.cuda.stream(producer):"""),
        ("""    # The default stream reads sums at the end.
    torch.cuda.current_stream().wait_stream(consumer)
""", ""),
    ]),
]
