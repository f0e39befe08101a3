ID = "python-handoff"
SRC = "exercises/day077/handoff.py"
NOTE = "Correct design: no `record_stream`; one batch in flight: each tensor is kept, with an event recorded on the consumer after its read, until the next batch is queued, and dropped only after the producer (its allocating stream) has queued a wait for that event, so its `cudaFreeAsync` follows the read; the consumer first waits for the default stream (where `sums` was zeroed), and the default stream waits for the consumer at the end. Peaks read with `torch.cuda.max_memory_allocated` and `max_memory_reserved`. Needs PyTorch on a GPU: not run here (compiled with `python3 -m py_compile`)."


def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}


E = [
("""# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
# TODO: write this part
""", """# PyTorch reads this once, when it first touches CUDA's memory: it must be
# set before that, and setting it before the import is the safe place.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
"""),
("""    # TODO 2: make the two streams; for each batch, allocate and fill x on
    # the producer, double and sum it on the consumer into sums[b], and
    # drop x. The consumer must not read x before the producer wrote it,
    # and x's memory must not be handed out again while the consumer may
    # still read it.
    # TODO: write this part
""", """    home = torch.cuda.current_stream()  # made sums, and reads it after us
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
"""),
("""    # TODO 3: print the two peaks from PyTorch's counters, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    # TODO: write this part
""", """    peak_allocated = torch.cuda.max_memory_allocated()
    peak_reserved = torch.cuda.max_memory_reserved()
    print(f"torch: peak allocated {peak_allocated >> 20} MiB, peak reserved {peak_reserved >> 20} MiB")
    torch.cuda.empty_cache()  # with cudaMallocAsync: trims the device's pool
"""),
]

CORRECT = (H("correct",
             "None intended: PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync set before the import; a fill on the producer, an event to the consumer, the doubling and sum on the consumer, and the drop deferred by one batch behind a producer wait on the consumer's event (no record_stream); the default stream ordered before the consumer at the start and after it at the end; the peaks from max_memory_allocated and max_memory_reserved, then empty_cache.",
             "Correct: the consumer reads each tensor after the producer's event; each tensor's free (a cudaFreeAsync on the producer, its allocating stream) is queued after a producer wait for the consumer's event after the read; sums, zeroed on the default stream, is written on the consumer only after it waited for the default stream, and read on the default stream only after it waited for the consumer. No host wait in the pipeline. The lesson names this way ('Making the allocating stream wait for the reader before the reference is dropped') beside record_stream.",
             "own"),
           E)

WRONGS = [
("drop-inside-consumer",
 H("free in the allocating stream's order, believed to be the current stream's (output identical)",
   "Each tensor is dropped inside the consumer's `with` block, right after its sum is queued, with no record_stream and no wait: the student believes a tensor dropped while the consumer is the current stream is freed in the consumer's order, after the read.",
   "PyTorch frees a tensor's memory in the order of the stream that allocated it (the producer), whatever stream is current when the last reference goes. With backend:cudaMallocAsync the cudaFreeAsync is queued on the producer, which is not ordered after the consumer's read, so the next batch's fill on the producer may take the same block while the consumer still reads it. The fill of the next batch usually starts after the read has ended, so the sums are right on most runs.",
   "https://wenscarl.github.io/GPU/Why-record-stream-Matters-A-Real-CUDA-Memory-Bug-in-SGLang.html (SGLang: a tensor's last reference dropped while another stream still read it; fixed with record_stream); https://github.com/meta-pytorch/torchrec/pull/4231 (NaN corruption from a missing record_stream)"),
 [("""    home = torch.cuda.current_stream()  # made sums, and reads it after us
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
""", """    home = torch.cuda.current_stream()  # made sums, and reads it after us
    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    consumer.wait_stream(home)  # sums was zeroed there
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.full((N,), float(b + 1), device="cuda")
        filled = torch.cuda.Event()
        filled.record(producer)
        consumer.wait_event(filled)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)
            del x  # dropped on the consumer, after its read is queued
    home.wait_stream(consumer)  # sums is read on the default stream next
""")]),
("record-stream-producer",
 H("record_stream on the wrong stream (output identical)",
   "The student uses record_stream, the lesson's other answer, but passes the producer, the stream the tensor was made on ('record the stream that made it'), and drops the tensor at once.",
   "record_stream(s) asks the allocator to wait for the work queued on s before reusing the block; s must be the stream that reads the tensor. The producer is the tensor's own stream, whose order the free follows anyway, so the call adds nothing: the block is freed on the producer with no order after the consumer's read, and the next fill may take it while the read is queued. Timing hides it on most runs.",
   "https://github.com/pytorch/pytorch/pull/24078 (the record_stream documentation written because its use was unclear: 'when should I call this function?'); the mistake is own"),
 [("""    # Tensors the consumer may still read, each with the event recorded on
    # the consumer after its read. A tensor is freed in its producer's
    # order when its last reference goes, so the producer first waits for
    # that event; one batch stays in flight so that the producer can fill
    # the next one while the consumer reads.
    in_flight = []
""", """    # A tensor read on another stream than its own needs record_stream
    # before it is dropped (the lesson's first answer).
"""),
  ("""        read = torch.cuda.Event()
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
""", """        x.record_stream(producer)  # the allocator waits for x's stream before reuse
        del x
""")]),
("sums-unordered",
 H("a tensor of the default stream written on a side stream with no order (output identical)",
   "The consumer never waits for the default stream: the student orders the two streams of the pipeline with each other and forgets that `sums` was made (and zeroed) by main on the default stream before the pipeline.",
   "torch.zeros queues its fill on the default stream; the consumer, a stream PyTorch makes non-blocking, is not ordered after it, so the first sums may be written before (and then overwritten by) the zeroing, and the consumer uses memory whose allocation on the default stream it is not ordered after. The zeroing is queued long before the consumer's first sum, which waits for a 16 MiB fill, so the sums are right on almost every run.",
   "https://wenscarl.github.io/GPU/Why-record-stream-Matters-A-Real-CUDA-Memory-Bug-in-SGLang.html (a tensor allocated on PyTorch's default stream and used by another stream without order)"),
 [("""    consumer = torch.cuda.Stream()
    consumer.wait_stream(home)  # sums was zeroed there
""", """    consumer = torch.cuda.Stream()
""")]),
("last-drop-unordered",
 H("the last of a deferred release not ordered (output identical)",
   "The loop keeps one batch in flight and drops each earlier tensor behind a producer wait, but after the loop the student just clears the list: the pipeline is over, so the last tensor is dropped without the producer waiting for its read.",
   "The last tensor's cudaFreeAsync is queued on the producer, which has not waited for the consumer's last read, so the block is free in the pool while that read may still be queued (any later allocation on the producer, or one the pool orders after the free, may take it). The default stream waits for the consumer before it reads the sums, so the sums are right; only a free-after-use check sees it.",
   "own (an off-by-one at the end of a deferred release)"),
 [("""    while in_flight:
        old, old_read = in_flight.pop(0)
        producer.wait_event(old_read)
        del old
""", """    in_flight.clear()  # the pipeline is over
""")]),
("peaks-current",
 H("current figures printed as peaks (output shows only figures)",
   "release prints torch.cuda.memory_allocated() and torch.cuda.memory_reserved() as the two peaks: the student takes the current figures for the peaks, the function names differing only by 'max_'.",
   "Both are what is held now, after the pipeline, with sums dropped: allocated is 0 and reserved is what the pool keeps (PyTorch sets its release threshold to the maximum), not the most the tensors and the pool held during the batches. The line has the asked shape and plausible numbers, so only a reader who knows what the peaks must be sees it.",
   "https://runebook.dev/en/docs/pytorch/generated/torch.cuda.max_memory_cached (the current and the high-water figures confused)"),
 [("""    peak_allocated = torch.cuda.max_memory_allocated()
    peak_reserved = torch.cuda.max_memory_reserved()""", """    peak_allocated = torch.cuda.memory_allocated()
    peak_reserved = torch.cuda.memory_reserved()""")]),
]
