ID = "python-handoff"
EXT = "py"
STUDENT = "exercises/day077/handoff.py"
DESIGN = ("NO record_stream and NO wait_stream inside the loop: the producer keeps a WINDOW of the last DEPTH = 3 batches' tensors, "
          "each with the event the consumer recorded behind its read (torch.cuda.Event() recorded with .record(consumer)); "
          "when the window is full the producer queues wait_event on the oldest read event and only then drops that tensor, so its "
          "free (in the producer's order, where it was allocated) follows the read; after the loop the producer waits on every held "
          "read event and the window is cleared; each batch's x made by torch.full on the producer, a fresh filled event recorded there, "
          "the consumer waits on it, doubles OUT OF PLACE (y = x * 2, its own 16 MiB on the consumer, dropped there) and writes the "
          "float64 sum into sums[b] by assignment; the consumer waits once for an event recorded on the default stream (the zeroed "
          "sums), the default stream waits for the consumer once at the end (wait_stream); TODO 1 rewrites PYTORCH_CUDA_ALLOC_CONF "
          "(and PYTORCH_ALLOC_CONF when set) with every backend entry dropped and backend:cudaMallocAsync first; release prints "
          "max_memory_allocated and max_memory_reserved, then empty_cache")
WRONGS = [
    dict(slug="window-left-at-return-without-the-producers-waits",
         shows="the record only (a race): the last three batches' tensors (every batch's when batches is 3 or fewer) are freed on the producer with nothing ordering the free after the consumer's read; every printed line right, since no later batch reuses that memory",
         mistake="after the loop the window is cleared with no producer.wait_event for the tensors still in it, 'the loop is over, the consumer has them all queued'",
         why="each held tensor's free is queued on the producer, where it was allocated, when the window drops it; without the wait that free is not ordered after the consumer's read of the same tensor, which may still be queued or running; the window's waits inside the loop cover only the tensors that left it before the end",
         source="related: pytorch/pytorch#23729 (a tensor deleted on its allocating stream while a side stream still reads it)",
         edits=[("    for old, old_read in held:\n        producer.wait_event(old_read)\n    held.clear()\n", "    held.clear()\n")]),
    dict(slug="oldest-tensor-dropped-before-the-producer-waits",
         shows="the record (a race at every batch past the third): the oldest tensor's free is queued on the producer before the wait for its read; the sums right on nearly every run, the read being three batches old",
         mistake="in the window the oldest tensor is dropped first and the producer's wait for its read event queued after ('drop it, the producer waits before its next fill anyway')",
         why="with the cudaMallocAsync backend the drop queues cudaFreeAsync on the producer at once: a wait queued after the free orders the next fill, not the free; the pool may hand the block to the next batch's torch.full on the producer, whose fill is then ordered after the wait, but the free itself is not ordered after the read, which a checker of frees sees",
         source="related: pytorch/pytorch#49915 (a tensor set to None on its stream while another stream still uses it)",
         edits=[("            producer.wait_event(old_read)\n            del old\n", "            del old\n            producer.wait_event(old_read)\n")]),
    dict(slug="doubling-written-before-the-consumer-block",
         shows="a race the default run often loses (default output): the doubling runs on the default stream with no wait for the fill: 'sums: k of N correct' short by timing; the record: reads of x not ordered after its fill and allocation on the producer",
         mistake="y = x * 2 is written one line up, just before `with torch.cuda.stream(consumer):`, so it is queued on the default stream",
         why="the consumer's wait on filled orders only the consumer: the doubling, on the default stream, may read x before the producer's fill (or even its allocation) is done, and the consumer then sums whatever the doubling saw; y is also made in the default stream's order and read on the consumer",
         source="related: pytorch/pytorch#49915 (work meant for a side stream queued on another stream by where the with block ends)",
         edits=[("        with torch.cuda.stream(consumer):\n            consumer.wait_event(filled)\n            y = x * 2\n",
                 "        y = x * 2\n        with torch.cuda.stream(consumer):\n            consumer.wait_event(filled)\n")]),
    dict(slug="peaks-read-as-what-is-held-now",
         shows="the program's own output: the peaks line prints what is held now ('peak allocated 0 MiB, peak reserved ...' the pool's current figure), not the high-water marks",
         mistake="release reads torch.cuda.memory_allocated() and torch.cuda.memory_reserved() for the two peaks",
         why="those are the current figures: after the pipeline and the drop of sums no tensor holds anything, so the allocated 'peak' is 0 MiB instead of the 16 MiB tensors the batches held together; the peaks are max_memory_allocated and max_memory_reserved (or the .peak keys of memory_stats)",
         source="MakazhanAlpamys/Soup#650 (memory_allocated() reported where the peak, max_memory_allocated(), was meant)",
         edits=[("    peak_allocated = torch.cuda.max_memory_allocated() >> 20\n    peak_reserved = torch.cuda.max_memory_reserved() >> 20\n",
                 "    peak_allocated = torch.cuda.memory_allocated() >> 20\n    peak_reserved = torch.cuda.memory_reserved() >> 20\n")]),
]
