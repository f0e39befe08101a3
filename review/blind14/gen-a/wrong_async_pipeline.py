from mkwrong import make
E = "async-pipeline"
make(E, "correct.cu", "host-memory-freed-without-unregister",
 "the destructor frees the three host buffers with free() but never calls cudaHostUnregister, reading 'give the host's memory back' as the allocation only",
 "default output: the driver still lists the freed pages as page-locked host memory: 'host buffers given back: no' (exit 0 from the results, the line wrong); the registrations leak until the process ends, and a later allocation at those addresses finds them already registered",
 "MoonshotAI/checkpoint-engine#67 (cudaHostRegister without the matching cudaHostUnregister: the driver's table keeps the range), iree-org/iree#23779",
 [("        if (p != nullptr && cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();\n", "")])
make(E, "correct.cu", "drain-records-one-event-on-every-stream",
 "drain makes one event, records it on every stream in turn and waits for it once, taking an event for 'a mark of everything recorded so far' (one host wait, as the correct design's, without the joins)",
 "timing and the record: a record overwrites the event's state, so the wait follows the last stream only; when an earlier stream ends later (its iterations started later, or its kernels were slower), main reads its results before the copies back land: wrong results or checksums on some runs, the host reading before the work it waited for is done on every run where another stream lags",
 "torch/cutorch#222 (one event recorded on several streams: the wait followed only the last record), eyalroz/cuda-api-wrappers#226 (cudaEventRecord overwrites the earlier state)",
 [("""    cudaStream_t first = streams_[0];
    std::vector<cudaEvent_t> ends;
    for (size_t i = 1; i < streams_.size(); i++) {
        cudaEvent_t e;
        if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) continue;
        cudaEventRecord(e, streams_[i]);
        cudaStreamWaitEvent(first, e, 0);
        ends.push_back(e);
    }
    cudaEvent_t all;
    if (cudaEventCreateWithFlags(&all, cudaEventDisableTiming) == cudaSuccess) {
        cudaEventRecord(all, first);
        cudaEventSynchronize(all);
        cudaEventDestroy(all);
    }
    for (cudaEvent_t e : ends) cudaEventDestroy(e);
""", """    cudaEvent_t end;
    if (cudaEventCreateWithFlags(&end, cudaEventDisableTiming) != cudaSuccess) return;
    for (cudaStream_t s : streams_) cudaEventRecord(end, s);
    cudaEventSynchronize(end);
    cudaEventDestroy(end);
""")])
make(E, "correct.cu", "block-freed-between-the-two-copies-back",
 "the iteration's block is freed right after the copy of the scaled values back, before the copy of the partial sums is queued, 'the big part is done'",
 "the record, and results by chance: the partial sums are read by a copy queued after the block's free, a use after free in the stream's own order; the pool may give the block to another stream's next iteration, whose slice copy then overwrites the sums before they are read (wrong checksums on some runs)",
 "own",
 [("""    cudaMemcpyAsync(out_ + off, scaled, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s);
    cudaFreeAsync(block, s);
""", """    cudaMemcpyAsync(out_ + off, scaled, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaFreeAsync(block, s);
    cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s);
""")])
make(E, "correct.cu", "copies-back-queued-before-the-checksum",
 "both copies back are queued right after scale, and checksum after them, 'the values are ready once scaled'",
 "default output: the sums are copied back before checksum writes them: the host gets whatever the fresh block held ('0 of 12 checksums right' or some right by chance when the pool hands back a block with an earlier iteration's sums); the results right",
 "own; huggingface/blog#3372 (a copy back queued before the compute it depends on)",
 [("""    checksum<<<BLOCKS, THREADS, 0, s>>>(scaled, n, partial);
    cudaMemcpyAsync(out_ + off, scaled, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s);
""", """    cudaMemcpyAsync(out_ + off, scaled, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s);
    checksum<<<BLOCKS, THREADS, 0, s>>>(scaled, n, partial);
""")])
