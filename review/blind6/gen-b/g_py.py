import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mk import *
src=open('exercises/day077/handoff.py').read()
src=rep(src,'''# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
# TODO: write this part
''','''# PyTorch reads its allocator configuration once, when it first allocates
# on the GPU; it must be in the environment before torch is imported.
os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"
''')
src=rep(src,'''    # TODO 2: make the two streams; for each batch, allocate and fill x on
    # the producer, double and sum it on the consumer into sums[b], and
    # drop x. The consumer must not read x before the producer wrote it,
    # and x's memory must not be handed out again while the consumer may
    # still read it.
    # TODO: write this part
''','''    producer = torch.cuda.Stream()
    consumer = torch.cuda.Stream()
    default = torch.cuda.current_stream()
    # sums was zeroed on the default stream: the consumer writes it.
    consumer.wait_stream(default)
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
        # No record_stream: the producer itself waits for the consumer's
        # read before x is dropped, so x is freed in the producer's order
        # after it (the other answer the lesson gives).
        producer.wait_event(read)
        del x
    # What the default stream owes: the sums (the consumer's) and the
    # producer's frees, before the main program reads or reallocates.
    default.wait_stream(consumer)
    default.wait_stream(producer)
''')
src=rep(src,'''    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    # TODO: write this part
''','''    stats = torch.cuda.memory_stats()
    print(f"torch: peak allocated {stats['allocated_bytes.all.peak'] >> 20} MiB, "
          f"peak reserved {stats['reserved_bytes.all.peak'] >> 20} MiB")
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
''')
ex='python-handoff'
write(ex,'correct.py',['kind: correct',
 'mistake: none. The design: two events a batch instead of wait_stream and record_stream: filled (producer) waited for by the',
 'consumer, read (consumer) waited for by the producer before x is dropped, so x is freed in the producer\'s order after the read;',
 'the default stream waits for both side streams at the end; the peaks read from memory_stats().',
 'why it is wrong: -','source: -'],src,py=True)
y1=rep(src,'''            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
            filled = torch.cuda.Event()
            filled.record(producer)''','''            x = torch.empty(N, dtype=torch.float32, device="cuda")
        x.fill_(b + 1)
        filled = torch.cuda.Event()
        filled.record(producer)''')
write(ex,'wrong-fill-outside-the-with.py',['kind: wrong',
 'mistake: x is made inside the producer\'s with block, but fill_ (and the event) are written one indent out, after the block:',
 'the fill runs on the default stream, while the event is still recorded on the producer.',
 'why it is wrong: the consumer waits for the producer, which did nothing but allocate; the fill on the default stream is ordered',
 'neither after x\'s allocation on the producer nor before the consumer\'s read. The fill is quick and queued first, so the sums',
 'are nearly always right.',
 'source: pytorch/pytorch#2702 (work left on the default stream while the rest runs on a side stream: a race, said the maintainers)'],y1,py=True)
y2=rep(src,'''        consumer.wait_event(filled)
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)''','''        filled.wait()
        with torch.cuda.stream(consumer):
            sums[b] = (x * 2).sum(dtype=torch.float64)''')
write(ex,'wrong-filled-waited-outside-the-consumer.py',['kind: wrong',
 'mistake: the consumer\'s wait for filled is written filled.wait() before the consumer\'s with block: Event.wait() without a',
 'stream makes the CURRENT stream wait, the default stream here, not the consumer.',
 'why it is wrong: the consumer reads x with nothing ordering it after the producer\'s fill (nor after x\'s allocation). The host',
 'takes long enough between the two that the fill is usually done: the sums come out right.',
 'source: pytorch/pytorch#60541 (an event waited on the stream that recorded it, not the one that needed it), pytorch/pytorch#15937',
 '(record() and wait() use torch.cuda.current_stream() when no stream is given)'],y2,py=True)
y3=rep(src,'''        producer.wait_event(read)
        del x''','''        del x
        producer.wait_event(read)''')
write(ex,'wrong-dropped-before-the-wait.py',['kind: wrong',
 'mistake: x is dropped first and the producer made to wait for the consumer\'s read after: del x comes before',
 'producer.wait_event(read).',
 'why it is wrong: the drop frees x in the producer\'s order at once, behind its fill but not behind the consumer\'s read, so the',
 'pool may hand the block out while the read is queued. The next batch\'s fill still comes after the wait on the producer, so',
 'the numbers are right; only the free is unordered.',
 'source: pytorch/pytorch#188655 (a tensor released while another stream still used it: the block recycled under it),',
 'meta-pytorch/torchrec#4231'],y3,py=True)
