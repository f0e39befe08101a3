"""Each wrong file of blind24 B: its exercise, slug, header lines and edits
(old text of the correct file, new text). make_wrong.py applies them."""
WRONGS = []


def W(ex, slug, where, mistake, why, source, *edits):
    WRONGS.append(dict(ex=ex, slug=slug, where=where, mistake=mistake, why=why, source=source, edits=list(edits)))


# ---- python-handoff ----
W("python-handoff", "scratch-made-inside-the-first-producer-block",
  "the record only: the printed lines right",
  "the consumer's scratch y is made lazily inside the first batch's `with torch.cuda.stream(producer)` block ('made where the first batch needs it') instead of inside a consumer block before the loop",
  "y is then allocated on the producer stream, and the allocator frees it in its allocation stream's order: the `del y` at the end queues its free on the producer, which nothing orders after the consumer's last doubling and sum that read and write y (main waits for the consumer, the producer does not); the uses of y are ordered after its allocation (the consumer waits for each fill event, recorded after it), so only the free is unordered, and no later allocation is ordered after the consumer ahead of it: every printed line right, the record a free while another stream may still use the memory",
  "own",
  ('''    with torch.cuda.stream(consumer):
        y = torch.empty(N, dtype=torch.float32, device="cuda")  # the consumer's scratch, reused by every batch
    for b in range(batches):
        with torch.cuda.stream(producer):
''', '''    y = None
    for b in range(batches):
        with torch.cuda.stream(producer):
            if y is None:
                y = torch.empty(N, dtype=torch.float32, device="cuda")  # the consumer's scratch, made with the first batch
'''))
W("python-handoff", "slot-filled-through-item",
  "the record only: a host wait at every batch; the printed lines right",
  "each batch's sum is stored with sums[b] = y.sum(dtype=torch.float64).item(), 'the slot takes a number', instead of sums[b].copy_(...) of the 0-dim tensor",
  ".item() copies the sum to the host and waits for the consumer stream to reach it, every batch: the host stops inside pipeline while the consumer doubles and sums (the producer cannot get ahead by more than a batch), which the exercise forbids; the value written back is exact, so every line right",
  "related: openvdb/fvdb-core#586 (.item() on CUDA tensors in a loop, one host synchronisation each)",
  ('''            sums[b].copy_(y.sum(dtype=torch.float64))''', '''            sums[b] = y.sum(dtype=torch.float64).item()'''))
W("python-handoff", "consumer-polls-the-fill-event",
  "the record only: a host wait (a polling loop, no synchronize call) at every batch, and uses of x on the consumer not ordered after its fill in stream order; the printed lines right",
  "instead of consumer.wait_event(filled), the host spins on `while not filled.query(): pass` before queuing the consumer's work, 'start the consumer once the fill is done'",
  "the host now waits for the producer at every batch (a busy loop: no cudaStreamSynchronize or cudaEventSynchronize for a grader to count), and the consumer stream itself is never ordered after the producer: the consumer's reads of x are ordered after x's allocation and fill only by the host's timing, not by any stream dependency the allocator or a checker can see",
  "own",
  ('''        consumer.wait_event(filled)''', '''        while not filled.query():
            pass'''))
W("python-handoff", "scratch-marked-with-record-stream-instead-of-x",
  "a race: the printed sums now and then short, most runs right; the record always (x freed on the producer while the consumer may still read it)",
  "the consumer's block calls y.record_stream(consumer) on its scratch tensor, 'the tensor the consumer uses', instead of x.record_stream(consumer)",
  "y was made on the consumer, so marking it changes nothing; x, made on the producer, is dropped unmarked, so its memory is freed in the producer's order only and may be handed to the next batch's x while the consumer's torch.mul still reads it; the next fill can then overwrite it first",
  "related: NVIDIA/cudnn-frontend#1186 (a side-stream copy records the tensor it writes, not the one it reads)",
  ('''            x.record_stream(consumer)''', '''            y.record_stream(consumer)'''))
