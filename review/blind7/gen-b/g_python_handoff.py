from mk import *
EX = "python-handoff"
s = read("exercises/day077/handoff.py")
s = sub(s, '''# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
# TODO: write this part
''', '''# The backend is read once, when torch first touches CUDA: it must be in
# the environment before the import below. Any other option already
# there is kept, and a backend already named there is replaced.
_conf = [o for o in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "").split(",") if o and not o.startswith("backend:")]
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ",".join(_conf + ["backend:cudaMallocAsync"])
''')
s = sub(s, '''    # TODO 2: make the two streams; for each batch, allocate and fill x on
    # the producer, double and sum it on the consumer into sums[b], and
    # drop x. The consumer must not read x before the producer wrote it,
    # and x's memory must not be handed out again while the consumer may
    # still read it.
    # TODO: write this part
''', '''    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    # sums was zeroed on the default stream: the consumer writes it only
    # after that.
    consumer.wait_stream(torch.cuda.current_stream())
    for b in range(batches):
        filled = torch.cuda.Event()
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(float(b + 1))
            filled.record(producer)
        consumer.wait_event(filled)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2.0).sum(dtype=torch.float64)
        # x was made in the producer's order; the consumer reads it too, so
        # its memory goes back only once the consumer's work queued so far
        # is done.
        x.record_stream(consumer)
        del x
    # Whatever main does next on the default stream comes after both.
    torch.cuda.current_stream().wait_stream(consumer)
    torch.cuda.current_stream().wait_stream(producer)
''')
s = sub(s, '''    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    # TODO: write this part
''', '''    a = torch.cuda.max_memory_allocated() >> 20
    r = torch.cuda.max_memory_reserved() >> 20
    print(f"torch: peak allocated {a} MiB, peak reserved {r} MiB")
    torch.cuda.empty_cache()
''')
correct = s
write(EX, "correct.py", header("#", "correct", "none: the producer's fill handed over by a fresh event per batch (consumer.wait_event), the drop ordered by x.record_stream(consumer); the consumer waits for the default stream once before the loop and the default stream for both side streams after it; the backend appended to any PYTORCH_CUDA_ALLOC_CONF already set; peaks from max_memory_allocated/reserved.", "none.", "none (written from the lesson and the student file).") + correct)

W = [
("alloc-conf-only-set-when-unset",
 "wrong (shows only when the environment already holds an allocator option)",
 "TODO 1 sets the backend with os.environ.setdefault(\"PYTORCH_CUDA_ALLOC_CONF\", \"backend:cudaMallocAsync\"), so a run whose environment already names any option (expandable_segments, a garbage threshold) keeps PyTorch's native caching allocator.",
 "setdefault leaves an existing PYTORCH_CUDA_ALLOC_CONF alone: on a machine or a grader that sets another option, the backend line prints native and no tensor comes from CUDA's stream-ordered pool, the exercise's first requirement; a casual run in a clean shell prints cudaMallocAsync.",
 "axolotl-ai-cloud/axolotl#2183 (PYTORCH_CUDA_ALLOC_CONF set by the program only when os.getenv says it is None), NovaSky-AI/SkyRL#1768 (review: a launcher exports PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True for its workers; the variable is often already set in a real environment)",
 [('''_conf = [o for o in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "").split(",") if o and not o.startswith("backend:")]
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = ",".join(_conf + ["backend:cudaMallocAsync"])
''', '''os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync")
'''), ('''# the environment before the import below. Any other option already
# there is kept, and a backend already named there is replaced.
''', '''# the environment before the import below.
''')]),
("kept-alive-in-a-ring-of-twelve",
 "wrong (shows only with more batches than the default)",
 "instead of record_stream, the producer keeps each x alive in a ring of 12 slots (keep[b % 12] = x) so that the consumer has long finished with a tensor before it is let go; the ring's size is the default number of batches.",
 "with 12 batches or fewer no slot is overwritten inside the loop, and the ring is dropped only after the producer waited for the consumer: a default run is right, for the output and for the order of every free. With more batches, putting batch b's x in slot b % 12 drops batch b - 12's tensor with nothing ordering its free after the consumer's read; 'twelve batches later' is a guess about time, not an order, and the producer runs ahead of the consumer, so the memory can be handed to the producer's next fill while the consumer still reads it.",
 "pytorch/pytorch#188655 (stash/unstash: tensors kept alive by the program instead of record_stream; reuse became unsafe once more streams and more work were in flight), meta-pytorch/torchrec#4231 (a block reused while another stream still read it: corrupt data, not an error)",
 [('''    for b in range(batches):
        filled = torch.cuda.Event()
''', '''    keep = [None] * 12   # each tensor stays alive 12 batches: the consumer is done by then
    for b in range(batches):
        filled = torch.cuda.Event()
'''), ('''        # x was made in the producer's order; the consumer reads it too, so
        # its memory goes back only once the consumer's work queued so far
        # is done.
        x.record_stream(consumer)
        del x
''', '''        # x was made in the producer's order; the consumer reads it too, so
        # it is let go only when its slot comes round again.
        keep[b % len(keep)] = x
        del x
'''), ('''    torch.cuda.current_stream().wait_stream(producer)
''', '''    torch.cuda.current_stream().wait_stream(producer)
    producer.wait_stream(consumer)   # the ring's last tensors go in the producer's order
    del keep
''')]),
("record-stream-on-the-doubled-copy",
 "wrong (race the output rarely shows)",
 "the consumer keeps the doubled tensor y = x * 2 and calls y.record_stream(consumer) before the drop, not x.record_stream(consumer); x is dropped with nothing recorded.",
 "y was allocated on the consumer, which needs no record; x, allocated on the producer, goes back to the pool in the producer's order as soon as it is dropped, and the producer's next x can be given the same memory and filled while the consumer still reads the old one: the sums come out right unless the fill overtakes the read.",
 "NVIDIA/TensorRT-LLM#15265 (record_stream missing on the handed-off tensors: recycled mid-use only under load), meta-pytorch/torchrec#4231 (reused block without record_stream: corrupt data)",
 [('''            sums[b] = (x * 2.0).sum(dtype=torch.float64)
''', '''            y = x * 2.0
            sums[b] = y.sum(dtype=torch.float64)
'''), ('''        x.record_stream(consumer)
        del x
''', '''        y.record_stream(consumer)
        del x, y
''')]),
]
for slug, kind, mis, why, src, edits in W:
    write(EX, "wrong-%s.py" % slug, header("#", kind, mis, why, src) + apply(correct, edits))
