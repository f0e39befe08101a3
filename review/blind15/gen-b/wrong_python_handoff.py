WRONG = [
 dict(slug="x-dropped-before-the-producer-waits-for-the-read",
  where="race in the record: every x is freed in the producer's order with nothing before it but the fill; the next batch may get the same memory and refill it while the consumer still reads; the sums now and then",
  mistake="the producer's wait for the read event is queued after `del x` instead of before it",
  why="dropping the last reference frees x at once in the producer's order; the wait queued afterwards orders only what comes later on the producer, not the free, so the free is not ordered after the consumer's read",
  source="pytorch/pytorch#23729",
  edits=[("""        producer.wait_event(read)
        del x
""","""        del x
        producer.wait_event(read)
""")]),
 dict(slug="fill-waited-for-on-the-default-stream",
  where="race: the consumer's read of x is ordered after nothing on the producer (the wait is on the default stream); the record always (an unordered use), the sums now and then",
  mistake="the wait for filled is written with torch.cuda.current_stream().wait_event(filled) just before entering the consumer's with block, where the current stream is still the default stream",
  why="a wait binds the stream it is called on; outside the with block that is the default stream, so the consumer reads x with nothing ordering it after the producer's allocation and fill",
  source="own",
  edits=[("""        with torch.cuda.stream(consumer):
            consumer.wait_event(filled)
""","""        torch.cuda.current_stream().wait_event(filled)
        with torch.cuda.stream(consumer):
""")]),
 dict(slug="peaks-reset-before-they-are-printed",
  where="the program's own output: the peaks line shows what is held at the moment of the reset (0 MiB allocated), not the pipeline's high-water marks",
  mistake="release calls torch.cuda.reset_peak_memory_stats() before reading max_memory_allocated and max_memory_reserved (\"fresh figures\")",
  why="the reset sets each peak to what is held now; after main dropped sums and want, nothing is allocated, so the printed peaks are the current figures the exercise says not to print",
  source="own",
  edits=[("""    peak_alloc = torch.cuda.max_memory_allocated() >> 20""","""    torch.cuda.reset_peak_memory_stats()
    peak_alloc = torch.cuda.max_memory_allocated() >> 20""")]),
 dict(slug="read-polled-on-the-host-before-the-drop",
  where="the record: a host wait every batch (cudaEventQuery in a loop); the sums are right and every free is in fact after its read",
  mistake="instead of producer.wait_event(read), the host spins on read.query() until the consumer's sum is done, then drops x",
  why="polling an event is a host wait that no synchronize shows: the host stalls every batch until the GPU has caught up, so the streams never run side by side, which the exercise forbids",
  source="own",
  edits=[("""        producer.wait_event(read)
        del x
""","""        while not read.query():
            pass
        del x
""")]),
]
