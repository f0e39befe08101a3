EX = "vmm-growable"
STUDENT = "exercises/day072/growable.cu"
DESIGN = ("NO handle kept: each chunk's handle is released (cuMemRelease) right after its cuMemMap, the mapping alone holding the memory, and chunks_ keeps only the "
          "sizes; never in place past the reservation: a move into a new range of TWICE the rounded request (headroom, so a later grow up to it stays in place), "
          "each chunk's handle taken back from its old address with cuMemRetainAllocationHandle, mapped at its offset in the new range and released again at once, "
          "access opened chunk by chunk, a failure undone with the old range kept; cuCtxSynchronize before the old chunks are unmapped and the old range freed with its "
          "own size; release is one cuMemUnmap per chunk (which frees the memory, no handle being left) and one cuMemAddressFree")
EDITS = [
("""        // TODO 1: round n up to a multiple of granularity_.
        return n;""",
"""        return (n + granularity_ - 1) / granularity_ * granularity_;"""),
("""            // TODO 2: make room past the reservation, keeping the data: your
            // design (grow in place where you can, or move; see the lesson).
            // Every range you reserve must be given back in the end.
            return false;
        }
        // TODO 3: make the memory from mapped_ to want: a physical
        // allocation, mapped right after what is mapped and opened for
        // reads and writes, its handle kept in chunks_ for release().
        return false;
    }""",
"""            // Never in place: the buffer moves into a range of twice the
            // request, so that the next grows up to it stay where they are.
            if (!move(2 * want)) return false;
        }
        // The memory from mapped_ to want: one allocation, mapped after what
        // is mapped. Its handle goes at once: the mapping keeps the memory
        // alive, and a move takes the handle back from the address.
        const size_t more = want - mapped_;
        CUmemGenericAllocationHandle h;
        CU(cuMemCreate(&h, more, &prop_, 0));
        if (cuMemMap(base_ + mapped_, more, 0, h, 0) != CUDA_SUCCESS) {
            cuMemRelease(h);
            fprintf(stderr, "cuMemMap of %zu bytes failed\\n", more);
            return false;
        }
        CU(cuMemRelease(h));
        chunks_.push_back({0, more});
        const size_t at = mapped_;
        mapped_ = want;
        CU(cuMemSetAccess(base_ + at, more, &access_, 1));
        return true;
    }

    // move maps every chunk at its offset in a new range of size bytes,
    // then takes the old range down; on failure the old range stays.
    bool move(size_t size) {
        CUdeviceptr fresh = 0;
        CU(cuMemAddressReserve(&fresh, size, granularity_, 0, 0));
        size_t done = 0;  // bytes mapped in the new range so far
        auto undo = [&]() {
            size_t off = 0;
            for (size_t i = 0; i < chunks_.size() && off < done; off += chunks_[i].bytes, i++) cuMemUnmap(fresh + off, chunks_[i].bytes);
            cuMemAddressFree(fresh, size);
            fprintf(stderr, "moving the buffer to a new range failed\\n");
            return false;
        };
        for (const Chunk& c : chunks_) {
            CUmemGenericAllocationHandle h;
            if (cuMemRetainAllocationHandle(&h, reinterpret_cast<void*>(base_ + done)) != CUDA_SUCCESS) return undo();
            const CUresult mapped = cuMemMap(fresh + done, c.bytes, 0, h, 0);
            cuMemRelease(h);
            if (mapped != CUDA_SUCCESS) return undo();
            done += c.bytes;
            if (cuMemSetAccess(fresh + done - c.bytes, c.bytes, &access_, 1) != CUDA_SUCCESS) return undo();
        }
        // Work queued on the old addresses (a caller's stream among it)
        // must be over before they are unmapped.
        CU(cuCtxSynchronize());
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        CU(cuMemAddressFree(base_, reserved_));
        base_ = fresh;
        reserved_ = size;
        return true;
    }"""),
("""        // TODO 4: tear down in an order the driver accepts.
        return false;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return true;""",
"""        // No handle is left: unmapping a chunk frees its memory.
        bool ok = true;
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            ok = cuMemUnmap(base_ + off, c.bytes) == CUDA_SUCCESS && ok;
            off += c.bytes;
        }
        chunks_.clear();
        if (base_ != 0) ok = cuMemAddressFree(base_, reserved_) == CUDA_SUCCESS && ok;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return ok;"""),
]
