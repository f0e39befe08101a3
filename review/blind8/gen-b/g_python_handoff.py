from mk import student, sub, build

T = student("exercises/day077/handoff.py")

R = [
("""# TODO 1: make PyTorch allocate every tensor with cudaMallocAsync, from
# CUDA's stream-ordered pool, instead of its own cache of cudaMalloc
# segments.
# TODO: write this part
""",
"""# The backend is read once, when PyTorch first allocates on the GPU: it is
# set before torch is imported at all.
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
    # The consumer writes its sums into a tensor of its own, made on its
    # stream, so it never touches `sums`; the default stream copies them
    # over once, at the end, after waiting for the consumer.
    with torch.cuda.stream(consumer):
        part = torch.zeros(batches, dtype=torch.float64, device="cuda")
    for b in range(batches):
        with torch.cuda.stream(producer):
            x = torch.empty(N, dtype=torch.float32, device="cuda")
            x.fill_(b + 1)
        consumer.wait_stream(producer)
        with torch.cuda.stream(consumer):
            part[b] = (x * 2).sum(dtype=torch.float64)
        # x's memory goes back in the producer's order: the allocator must
        # also wait for what the consumer has queued on it.
        x.record_stream(consumer)
        del x
    default.wait_stream(consumer)
    sums.copy_(part)
    # part was made on the consumer and is read by the default stream.
    part.record_stream(default)
    del part
"""),
("""    # TODO 3: print the two peaks, PyTorch's high-water marks, in MiB, as
    # "torch: peak allocated A MiB, peak reserved R MiB"; then hand back
    # what the allocator holds and no tensor uses.
    # TODO: write this part
""",
"""    print(f"torch: peak allocated {torch.cuda.max_memory_allocated() >> 20} MiB, "
          f"peak reserved {torch.cuda.max_memory_reserved() >> 20} MiB")
    torch.cuda.synchronize()  # every stream's frees done: the pool can give it all back
    torch.cuda.empty_cache()
"""),
]

C = T
for o, n in R:
    C = sub(C, o, n)

CORRECT = ("correct",
           "none: the backend set before torch is imported (the variable overwritten); the consumer waits for the producer with wait_stream each batch and x.record_stream(consumer) orders each drop; the consumer writes its sums into a tensor of its own made on its stream, which the default stream copies into sums once at the end, after waiting for the consumer, with part.record_stream(default) before it is dropped; peaks from max_memory_allocated and max_memory_reserved, a synchronize and empty_cache at the end.",
           "none.",
           "none (written from the lesson and the student file).")

W = [
    ("part-dropped-while-the-default-stream-copies",
     ("wrong (the record only: a free unordered with the default stream's read)",
      "the consumer's partial sums are copied into sums on the default stream and then dropped with no record_stream(default): part was made on the consumer, and its memory goes back in the consumer's order.",
      "the free of part is ordered after the consumer's work, not after the default stream's copy that reads it: the pool may hand the memory out again (to the next tensor main makes on any stream) while the copy still reads it; nothing is allocated on the consumer after it here, so the sums come out right, and only the record shows the free while another stream could still read.",
      "NVIDIA/TensorRT-LLM#15265 (record_stream missing on a tensor handed to another stream: recycled mid-use only under load), meta-pytorch/torchrec#4231 (a block reused while another stream still read it: corrupt data, no error)"),
     [("    sums.copy_(part)\n    # part was made on the consumer and is read by the default stream.\n    part.record_stream(default)\n    del part\n",
       "    sums.copy_(part)\n    del part\n")]),
    ("partial-sums-sized-for-twelve-batches",
     ("wrong (shows only with more than 12 batches: an IndexError)",
      "the consumer's tensor of partial sums is made with 12 slots (the default number of batches) and copied into sums as part[:batches].",
      "with 12 batches or fewer every slot needed exists and the output is right; a run with more batches fails at part[12] with an index error, and no sum is made.",
      "own (a size taken from the default argument; the course's checks run the script with other inputs too), ROCm/rocm-systems#1949 (an array of 32 slots indexed past its end once more than 32 waits came)"),
     [("        part = torch.zeros(batches, dtype=torch.float64, device=\"cuda\")",
       "        part = torch.zeros(12, dtype=torch.float64, device=\"cuda\")"),
      ("    sums.copy_(part)\n", "    sums.copy_(part[:batches])\n")]),
    ("producer-synchronized-every-sixteenth-batch",
     ("wrong (a host wait in the loop, only with 16 batches or more)",
      "to bound the memory in flight, the loop synchronizes the producer stream on the host every 16th batch (b % 16 == 15).",
      "the default run has 12 batches and never reaches the wait; a run with 16 or more makes the host wait for the GPU inside the pipeline, which the exercise forbids (the streams are to run side by side, and record_stream already bounds reuse).",
      "NVIDIA/apex#316 (a torch.cuda.synchronize kept inside the training loop on some iterations only), NVIDIA/Megatron-LM#1144 (a torch.cuda.synchronize added between streams already ordered by events)"),
     [("        x.record_stream(consumer)\n        del x\n",
       "        x.record_stream(consumer)\n        del x\n        if b % 16 == 15:\n            producer.synchronize()  # keep at most 16 batches in flight\n")]),
    ("doubled-on-the-producer-and-dropped-unrecorded",
     ("wrong (the record only: a tensor freed in the producer's order while the consumer reads it)",
      "the doubling is done on the producer, right after the fill (y = x * 2 inside the producer's with), and the consumer only sums y; x.record_stream(consumer) is kept, but y is dropped with no record_stream.",
      "y is made on the producer and read on the consumer; dropped unrecorded, its memory is free in the producer's order, and the next batch's x or y can be given that memory while the consumer's sum of this y is still queued: the numbers are usually right, and the record shows the free while another stream could read.",
      "NVIDIA/TensorRT-LLM#15265 (tensors allocated on one stream and consumed on another without record_stream: event waits order the work, not the allocator's reuse), meta-pytorch/torchrec#4231"),
     [("            x.fill_(b + 1)\n        consumer.wait_stream(producer)\n        with torch.cuda.stream(consumer):\n            part[b] = (x * 2).sum(dtype=torch.float64)\n",
       "            x.fill_(b + 1)\n            y = x * 2\n        consumer.wait_stream(producer)\n        with torch.cuda.stream(consumer):\n            part[b] = y.sum(dtype=torch.float64)\n"),
      ("        x.record_stream(consumer)\n        del x\n", "        x.record_stream(consumer)\n        del x, y\n")]),
]

build("python-handoff", "py", "#", C, CORRECT, W)
