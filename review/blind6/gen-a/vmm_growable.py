from gen import read, edit, header, write

S = read("exercises/day072/growable.cu")

C = S
C = edit(C, """        CU(cuMemAddressReserve(&base_, reserved_, granularity_, 0, 0));
        access_.location""", """        CU(cuMemAddressReserve(&base_, reserved_, granularity_, 0, 0));
        ranges_.push_back({base_, reserved_});
        access_.location""")
C = edit(C, """        // TODO 1: round n up to a multiple of granularity_.
        return n;""", """        return (n + granularity_ - 1) / granularity_ * granularity_;""")
C = edit(C, """        if (want > reserved_) {
            // TODO 2: make room past the reservation, keeping the data: your
            // design (grow in place where you can, or move; see the lesson).
            // Every range you reserve must be given back in the end.
            return false;
        }
        // TODO 3: make the memory from mapped_ to want: a physical
        // allocation, mapped right after what is mapped and opened for
        // reads and writes, its handle kept in chunks_ for release().
        return false;
    }""", """        if (want > reserved_) {
            if (!extend(want)) return false;
            if (want <= mapped_) return true;
        }
        // One chunk a reservation: a mapping never crosses from one
        // reservation into the next one beside it.
        while (mapped_ < want) {
            const size_t size = std::min(want, range_end(mapped_)) - mapped_;
            CUmemGenericAllocationHandle h;
            CU(cuMemCreate(&h, size, &prop_, 0));
            CUresult r = cuMemMap(base_ + mapped_, size, 0, h, 0);
            if (r != CUDA_SUCCESS) {
                cuMemRelease(h);
                return failed(r, "cuMemMap");
            }
            r = cuMemSetAccess(base_ + mapped_, size, &access_, 1);
            if (r != CUDA_SUCCESS) {
                cuMemUnmap(base_ + mapped_, size);
                cuMemRelease(h);
                return failed(r, "cuMemSetAccess");
            }
            chunks_.push_back({h, size});
            mapped_ += size;
        }
        return true;
    }""")
C = edit(C, """    bool release() {
        // TODO 4: tear down in an order the driver accepts.
        return false;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return true;
    }""", """    bool release() {
        bool ok = true;
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            ok = check(cuMemUnmap(base_ + off, c.bytes), "cuMemUnmap") && ok;
            ok = check(cuMemRelease(c.handle), "cuMemRelease") && ok;
            off += c.bytes;
        }
        chunks_.clear();
        for (const Range& r : ranges_) ok = check(cuMemAddressFree(r.start, r.bytes), "cuMemAddressFree") && ok;
        ranges_.clear();
        base_ = 0;
        mapped_ = reserved_ = 0;
        return ok;
    }""")
C = edit(C, """private:
    struct Chunk {
        CUmemGenericAllocationHandle handle;
        size_t bytes;
    };""", """private:
    struct Chunk {
        CUmemGenericAllocationHandle handle;
        size_t bytes;
    };
    // Range is one reservation: the buffer's addresses may be two side by
    // side (an in-place grow), each given back on its own.
    struct Range {
        CUdeviceptr start;
        size_t bytes;
    };
    std::vector<Range> ranges_;

    static bool failed(CUresult r, const char* what) {
        const char* s = nullptr;
        cuGetErrorString(r, &s);
        fprintf(stderr, "%s: %s\\n", what, s ? s : "?");
        return false;
    }
    static bool check(CUresult r, const char* what) { return r == CUDA_SUCCESS || failed(r, what); }

    // range_end is where the reservation holding offset off ends, as an
    // offset from base_.
    size_t range_end(size_t off) const {
        for (const Range& r : ranges_)
            if (base_ + off >= r.start && base_ + off < r.start + r.bytes) return r.start + r.bytes - base_;
        return reserved_;
    }

    // extend makes the reservation hold want bytes: in place, when the
    // driver grants the addresses right after it, else by moving.
    bool extend(size_t want) {
        const size_t more = want - reserved_;
        const CUdeviceptr end = base_ + reserved_;
        CUdeviceptr got = 0;
        if (cuMemAddressReserve(&got, more, 0, end, 0) == CUDA_SUCCESS) {
            if (got == end) {
                ranges_.push_back({got, more});
                reserved_ = want;
                return true;
            }
            cuMemAddressFree(got, more);  // granted elsewhere: ours, so ours to give back
        }
        return move(want);
    }

    // move maps every chunk again, in order, into a new reservation (with
    // room to grow), then takes down the old addresses once no queued work
    // can still use them. No byte is copied.
    bool move(size_t want) {
        const size_t size = std::max(want, round(2 * reserved_));
        CUdeviceptr to = 0;
        CU(cuMemAddressReserve(&to, size, granularity_, 0, 0));
        size_t off = 0, done = 0;
        CUresult r = CUDA_SUCCESS;
        for (; done < chunks_.size(); done++) {
            r = cuMemMap(to + off, chunks_[done].bytes, 0, chunks_[done].handle, 0);
            if (r != CUDA_SUCCESS) break;
            r = cuMemSetAccess(to + off, chunks_[done].bytes, &access_, 1);
            if (r != CUDA_SUCCESS) {
                cuMemUnmap(to + off, chunks_[done].bytes);
                break;
            }
            off += chunks_[done].bytes;
        }
        if (r != CUDA_SUCCESS) {
            for (size_t i = 0, o = 0; i < done; o += chunks_[i].bytes, i++) cuMemUnmap(to + o, chunks_[i].bytes);
            cuMemAddressFree(to, size);
            return failed(r, "remapping into the new reservation");
        }
        // Work queued on any stream may still use the old addresses.
        if (cudaDeviceSynchronize() != cudaSuccess) {
            fprintf(stderr, "a kernel failed before the move\\n");
            return false;
        }
        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        for (const Range& old : ranges_) CU(cuMemAddressFree(old.start, old.bytes));
        ranges_.assign(1, Range{to, size});
        base_ = to;
        reserved_ = size;
        return true;
    }""")
write("vmm-growable", "correct.cu", header(
    "correct",
    "none: grows in place where the driver grants the addresses right after the reservation (a second reservation kept beside the first, each freed on its own, a chunk never mapped across the two, no synchronisation), else moves: every chunk mapped again into a reservation twice as large, then one device synchronisation before the old addresses are unmapped (one cuMemUnmap per mapping) and freed.",
    "it is not wrong: sizes are whole granules, nothing is copied, every reservation is freed with its own size, the old range is taken down only after the work that may use it.",
    "none (written from the lesson and the student file).") + C)

# wrong 1: the hint freed, not the range the driver gave.
W1 = C
W1 = edit(W1, """        if (cuMemAddressReserve(&got, more, 0, end, 0) == CUDA_SUCCESS) {
            if (got == end) {
                ranges_.push_back({got, more});
                reserved_ = want;
                return true;
            }
            cuMemAddressFree(got, more);  // granted elsewhere: ours, so ours to give back
        }
        return move(want);""", """        if (cuMemAddressReserve(&got, more, 0, end, 0) == CUDA_SUCCESS && got == end) {
            ranges_.push_back({got, more});
            reserved_ = want;
            return true;
        }
        // Not granted where asked: give the extra addresses back, then move.
        CU(cuMemAddressFree(end, more));
        return move(want);""")
write("vmm-growable", "wrong-gives-back-the-hint-not-the-range.cu", header(
    "wrong",
    "when the in-place reservation is not granted at the address asked for, the grow frees the address it asked for (end, more) instead of the range the driver returned (or nothing, when the reservation failed), and stops on that free's error.",
    "the hint is not ours: the range the driver placed elsewhere leaks, and the free of the hint either fails (the addresses there belong to someone else's reservation of another size, or to nobody), so the grow fails and the buffer never moves, or, if the sizes happen to match, gives back someone else's reservation; on the default run the driver grants the hint and the branch never runs.",
    "NVIDIA/cuda-python#2345 (VMM growth frees an unowned address after a failed adjacent reservation: cuMemAddressFree(new_ptr, size) before the fallback, replacing the error and preventing the fallback)") + W1)

# wrong 2: round adds a granule to exact multiples.
W2 = C
W2 = edit(W2, """        return (n + granularity_ - 1) / granularity_ * granularity_;""", """        return (n + granularity_) & ~(granularity_ - 1);  // granularity_ is a power of two""")
write("vmm-growable", "wrong-round-adds-a-granule-to-multiples.cu", header(
    "wrong",
    "round adds a whole granule before masking, (n + g) & ~(g - 1), instead of g - 1.",
    "a size that is already a multiple of the granularity gets one granule more: 100 MiB in 2 MiB granules becomes 102 MiB mapped, a 64 MiB reservation becomes 66 MiB (its end no longer where the program reserves its blocking range), so every chunk and reservation is larger than asked; sizes that are not multiples (1 MiB) come out right, and the data checks all pass.",
    "kaldi-asr/kaldi#4478 (CUDA allocator rounding to 1 MiB: the proposed fix added 1 before masking and, as the reply says, gives 2M for a 1 MB request)") + W2)

# wrong 3: the move copies into one new allocation.
W3 = C
W3 = edit(W3, """    bool move(size_t want) {
        const size_t size = std::max(want, round(2 * reserved_));""", """    bool move(size_t want) {
        // A larger buffer, the data copied over, the old one given back.
        const size_t size = std::max(want, round(2 * reserved_));
        if (mapped_ > 0) return move_by_copy(want, size);""")
W3 = edit(W3, """    // move maps every chunk again""", """    bool move_by_copy(size_t want, size_t size) {
        CUdeviceptr to = 0;
        CU(cuMemAddressReserve(&to, size, granularity_, 0, 0));
        CUmemGenericAllocationHandle h;
        CU(cuMemCreate(&h, want, &prop_, 0));
        CU(cuMemMap(to, want, 0, h, 0));
        CU(cuMemSetAccess(to, want, &access_, 1));
        if (cudaDeviceSynchronize() != cudaSuccess) return false;  // the old data is written
        if (cudaMemcpy(reinterpret_cast<void*>(to), reinterpret_cast<void*>(base_), mapped_, cudaMemcpyDeviceToDevice) != cudaSuccess)
            return false;
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            CU(cuMemRelease(c.handle));
            off += c.bytes;
        }
        for (const Range& old : ranges_) CU(cuMemAddressFree(old.start, old.bytes));
        chunks_.assign(1, Chunk{h, want});
        ranges_.assign(1, Range{to, size});
        base_ = to;
        reserved_ = size;
        mapped_ = want;
        return true;
    }

    // move maps every chunk again""")
write("vmm-growable", "wrong-move-copies-into-a-new-chunk.cu", header(
    "wrong",
    "past the reservation (when not granted in place) the buffer moves the old way: a new reservation with one new chunk of the whole size, the old bytes copied over with cudaMemcpy, then the old chunks released.",
    "the lesson's point is that a VMM buffer never copies: the physical memory already holding the data is mapped again at the new addresses. This grow copies every byte, holds old and new memory at once (twice the buffer at the move), and waits on the host for the copy; the data and every reservation come out right.",
    "GPUOpen-LibrariesAndSDKs/VulkanMemoryAllocator#144 (asked for realloc, the maintainer advises creating a new buffer and removing the old one), redorav/crstl#21 (the default reallocation strategy is a larger buffer, a copy and a destroy; reserving addresses and committing pages is the better one)") + W3)
