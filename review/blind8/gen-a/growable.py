"""vmm-growable: the correct design and four wrong files (blind8, first half)."""
from mk import student, edit, header, write, wrong

EX, EXT = "vmm-growable", "cu"
t = student("exercises/day072/growable.cu")

t = edit(t, """        // TODO 1: round n up to a multiple of granularity_.
        return n;""", """        if (granularity_ == 0) return n;
        return (n + granularity_ - 1) / granularity_ * granularity_;""")

t = edit(t, """    bool grow(size_t bytes) {
        size_t want = round(bytes);
        if (want <= mapped_) return true;
        if (want > reserved_) {
            // TODO 2: make room past the reservation, keeping the data: your
            // design (grow in place where you can, or move; see the lesson).
            // Every range you reserve must be given back in the end.
            return false;
        }
        // TODO 3: make the memory from mapped_ to want: a physical
        // allocation, mapped right after what is mapped and opened for
        // reads and writes, its handle kept in chunks_ for release().
        return false;
    }""", """    //
    // The design: always move. Past the reservation the buffer moves to a
    // new range as large as the request plus the old reservation again
    // (room for the next grow), every chunk mapped at its offset there.
    // The old addresses may still be used by work on any stream of the
    // caller's (main writes the first part on a stream of its own), so the
    // move waits for the whole context (cuCtxSynchronize) before it unmaps
    // them: one wait a move, and a move is rare. data() changes; callers
    // ask for it again after a grow.
    bool grow(size_t bytes) {
        size_t want = round(bytes);
        if (want <= mapped_) return true;
        if (want > reserved_) {
            if (!move_to(want + reserved_)) return false;
        }
        const size_t size = want - mapped_;
        CUmemGenericAllocationHandle h;
        CU(cuMemCreate(&h, size, &prop_, 0));
        if (cuMemMap(base_ + mapped_, size, 0, h, 0) != CUDA_SUCCESS) {
            cuMemRelease(h);
            return false;
        }
        if (cuMemSetAccess(base_ + mapped_, size, &access_, 1) != CUDA_SUCCESS) {
            cuMemUnmap(base_ + mapped_, size);
            cuMemRelease(h);
            return false;
        }
        chunks_.push_back({h, size});
        mapped_ = want;
        return true;
    }""")

t = edit(t, """    bool release() {
        // TODO 4: tear down in an order the driver accepts.
        return false;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return true;
    }""", """    bool release() {
        bool ok = true;
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            ok = cuMemUnmap(base_ + off, c.bytes) == CUDA_SUCCESS && ok;
            off += c.bytes;
        }
        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
        chunks_.clear();
        if (base_ != 0) ok = cuMemAddressFree(base_, reserved_) == CUDA_SUCCESS && ok;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return ok;
    }""")

t = edit(t, """private:
    struct Chunk {
        CUmemGenericAllocationHandle handle;
        size_t bytes;
    };""", """private:
    struct Chunk {
        CUmemGenericAllocationHandle handle;
        size_t bytes;
    };

    // move_to reserves size bytes of new addresses, maps every chunk there
    // at the offset it has now and opens it, waits for the work that may
    // use the old addresses, then unmaps them (one cuMemUnmap a mapping)
    // and frees the old range. On a failure before the wait nothing old is
    // touched and the new range is given back.
    bool move_to(size_t size) {
        CUdeviceptr to = 0;
        CU(cuMemAddressReserve(&to, size, granularity_, 0, 0));
        size_t off = 0, done = 0;
        bool ok = true;
        for (const Chunk& c : chunks_) {
            if (cuMemMap(to + off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {
                ok = false;
                break;
            }
            done++;
            if (cuMemSetAccess(to + off, c.bytes, &access_, 1) != CUDA_SUCCESS) {
                ok = false;
                break;
            }
            off += c.bytes;
        }
        if (!ok) {
            size_t at = 0;
            for (size_t i = 0; i < done; i++) {
                cuMemUnmap(to + at, chunks_[i].bytes);
                at += chunks_[i].bytes;
            }
            cuMemAddressFree(to, size);
            return false;
        }
        CU(cuCtxSynchronize());
        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        CU(cuMemAddressFree(base_, reserved_));
        base_ = to;
        reserved_ = size;
        return true;
    }""")

write(EX, "correct.cu", header(
    "correct",
    "none: always move, into a new range of the request plus the old reservation again; every chunk mapped at its offset there and opened, one cuCtxSynchronize, then the old mappings unmapped one by one and the old range freed at once; the grown part one new chunk; release unmaps each mapping, releases each handle, frees the range.",
    "none: it is correct.",
    "none (written from the lesson and the student file)."), t)
correct = t

wrong(EX, EXT, correct, "chunks-remapped-in-reverse",
      "wrong (shows only on a move while the buffer holds two chunks or more: THEN_MIB past the second reservation, such as 100 64 200)",
      "move_to maps the chunks into the new range walking the list from its last chunk to its first (as teardown code walks it), each at the next offset from 0, so their order in the new range is reversed.",
      "a move must keep every chunk at the offset it had: with one chunk (the default run's move) the order does not matter, but the second move of a buffer of two chunks puts the 98 MiB chunk first and the first 2 MiB after it: the data move, and the old range's unmaps no longer match what was mapped at the new offsets.",
      "own (a loop copied from the teardown, which walks the chunks newest first); pytorch/pytorch#188008 (an unmap over a range computed from the segment's slots, not from what was really mapped there)",
      [("""        for (const Chunk& c : chunks_) {
            if (cuMemMap(to + off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {""", """        for (auto it = chunks_.rbegin(); it != chunks_.rend(); ++it) {
            const Chunk& c = *it;
            if (cuMemMap(to + off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {"""),
       ("""            for (size_t i = 0; i < done; i++) {
                cuMemUnmap(to + at, chunks_[i].bytes);
                at += chunks_[i].bytes;
            }""", """            for (size_t i = 0; i < done; i++) {
                cuMemUnmap(to + at, chunks_[chunks_.size() - 1 - i].bytes);
                at += chunks_[chunks_.size() - 1 - i].bytes;
            }""")])

wrong(EX, EXT, correct, "unmap-before-the-wait",
      "wrong (the old range unmapped while work queued on it may still run; the wait comes after)",
      "move_to unmaps the old mappings first and only then calls cuCtxSynchronize, before freeing the old addresses, reasoning that the wait is needed before the addresses are given back.",
      "the unmap is what pulls the memory from under a running kernel: the side stream's fill, launched just before the grow, may still write the old addresses when they are unmapped (an illegal address, or lost data); here the fill is small and usually done, so the output is right.",
      "NVIDIA/cuda-python#2886 (a VMM deallocate that calls cuMemUnmap at once, without ordering on the stream: work in flight accesses an unmapped range), vllm-project/vllm#43020 (cuMemUnmap issued while kernels on the stream had not completed: an illegal memory access)",
      [("""        CU(cuCtxSynchronize());
        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        CU(cuMemAddressFree(base_, reserved_));""", """        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        CU(cuCtxSynchronize());  // nothing may use the addresses we give back
        CU(cuMemAddressFree(base_, reserved_));""")])

wrong(EX, EXT, correct, "wait-only-at-the-first-move",
      "wrong (shows only at a second move, THEN_MIB past the second reservation: no wait before the unmap)",
      "move_to waits (cuCtxSynchronize) only the first time the buffer moves, keeping a flag, on the reasoning that the caller's own stream was the one thing not ordered and has been waited for.",
      "every move unmaps addresses that work queued since may still use: before the second move main queues two fills on the default stream on the buffer; unmapping under them can fault or lose their writes; the default run moves once and is right.",
      "pytorch/pytorch#196258 (the synchronisation before an unmap taken on one path and not on another: segments unmapped under queued work, an illegal memory access), NVIDIA/cuda-python#2886 (VMM unmaps without ordering on the stream)",
      [("""        CU(cuCtxSynchronize());
        off = 0;""", """        if (!waited_) CU(cuCtxSynchronize());  // the caller's stream, once
        waited_ = true;
        off = 0;"""),
       ("""    std::vector<Chunk> chunks_;""", """    std::vector<Chunk> chunks_;
    bool waited_ = false;""")])

wrong(EX, EXT, correct, "new-range-sized-from-the-unrounded-request",
      "wrong (shows only for a request that is not a whole number of granules, such as MIB 101: the move's reservation is refused)",
      "grow passes the request's own size plus the old reservation to move_to (bytes + reserved_), not the rounded want, so the new range's size is rounded only when the request already was.",
      "cuMemAddressReserve takes whole granules: 100 MiB is 50 of 2 MiB and works, 101 MiB is not and the move fails (or, where a driver rounds, the range is later freed with a size it was not reserved with); a buffer must accept any size its caller asks.",
      "own (the rounded size computed and the raw one passed); the lesson's pitfall 'Sizes not rounded' (cuMemCreate and cuMemMap fail with CUDA_ERROR_INVALID_VALUE for a size that is not a multiple of the granularity)",
      [("""            if (!move_to(want + reserved_)) return false;""", """            if (!move_to(bytes + reserved_)) return false;""")])
