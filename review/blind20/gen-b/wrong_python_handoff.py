WRONG = [
    dict(slug="backend-value-capitalised",
         shows="the program's own output: PyTorch does not know the backend CudaMallocAsync (its parser accepts native and cudaMallocAsync, spelt so) and stops with 'Unknown allocator backend, options are native and cudaMallocAsync' where it first reads the setting (at import or at the first CUDA call): no line past the error (at best, on a PyTorch that ignored it, the first line says native); the record: no cudaMallocAsync",
         mistake="the entry is written backend:CudaMallocAsync, the value capitalised like a class name",
         why="the backend's value is matched exactly, case included: only backend:cudaMallocAsync selects CUDA's stream-ordered allocator",
         source="own",
         edits=[("""_ASYNC = "backend:cudaMallocAsync\"""", """_ASYNC = "backend:CudaMallocAsync\"""")]),
    dict(slug="filled-recorded-between-the-allocation-and-the-fill",
         shows="race: the record at every batch (the consumer's read of x not ordered after the fill, only after x's allocation); the sums now and then wrong (the consumer reads memory the fill has not reached yet: the batch before's values, which the pool hands back for the same size, or whatever it held)",
         mistake="the producer records its event right after torch.empty and fills x after the record, 'the event marks x as handed on once it exists'",
         why="an event marks the work queued before its record; recorded before fill_, the consumer's wait covers the allocation but not the fill, so the doubling and sum may run while the fill writes",
         source="own",
         edits=[("""            x.fill_(b + 1)
            # A fresh event for every batch, recorded once, behind the fill.
            filled = torch.cuda.Event()
            filled.record(producer)""", """            # A fresh event for every batch, recorded once, behind the fill.
            filled = torch.cuda.Event()
            filled.record(producer)
            x.fill_(b + 1)""")]),
    dict(slug="x-dropped-without-record-stream",
         shows="race: the record at every batch (x's free, queued on the producer as soon as x is dropped, not ordered after the consumer's read); the sums often wrong (the next batch's x gets the same memory from the pool and the producer fills it at once, while the consumer may still be summing the batch before)",
         mistake="the script drops x without x.record_stream(consumer), 'the consumer waited for the fill, so x is the consumer's now'",
         why="the allocator knows only x's allocation stream, the producer; without record_stream (or a producer wait for the consumer) it frees x in the producer's order, which says nothing of the consumer's read",
         source="related: pytorch/pytorch#23729 (memory of a tensor used on another stream than its own reused by the allocator before that stream is done: record_stream)",
         edits=[("""            # x was made on the producer; the allocator must also know the
            # consumer used it, so that its free waits for this read.
            x.record_stream(consumer)
""", "")]),
    dict(slug="consumer-gated-by-a-host-wait-on-filled",
         shows="the record: a host wait at every batch (cudaEventSynchronize of filled, the producer's fill of 16 MiB); the sums right, the streams overlapping less",
         mistake="the consumer's block calls filled.synchronize(), taking it for 'make this stream wait for the event', instead of consumer.wait_event(filled)",
         why="Event.synchronize makes the host wait for the event; the ordering the consumer needs is a wait queued on the consumer stream, which the host does not wait for, and the exercise forbids host waits in pipeline",
         source="related: pytorch/pytorch#82061 (torch.cuda.Event's wait and synchronize confused in its own documentation: one makes a stream wait, the other the host)",
         edits=[("""            consumer.wait_event(filled)""", """            filled.synchronize()""")]),
]
