from mk import build

CORRECT = dict(
    kind='correct (a design of its own)',
    mistake='none. In place first: past the reservation, grow asks for the addresses right after it (the hint) and keeps them when the driver grants exactly them, so data() never moves and nothing waits; when the range lands elsewhere it is freed at once and the buffer moves: a larger range, every chunk mapped at its offset and opened, a device-wide wait for the old addresses\' users, each old chunk unmapped and each old range freed with its own size. The new memory is one chunk, which may span two side-by-side ranges (as NVIDIA\'s VectorMemMap sample maps it).',
    **{'why it is wrong': 'it is not: every size is a whole number of granularity units, every mapping is opened, a range granted elsewhere is given back, a move waits before it unmaps, and release unmaps and releases each chunk and frees each range with the size it was reserved with.'},
    source='the lesson (day 72, "Running out of reservation" and "Exercise: vmm-growable"); the blog post "Introducing Low-Level GPU Virtual Memory Management" and its VectorMemMap sample (try in place first, keep a list of VA ranges); the driver API reference, cuMemAddressReserve (addr is a hint) and cuMemAddressFree (the size must match the reservation).',
)

C = [
("""    size_t round(size_t n) const {
        // TODO 1: round n up to a multiple of granularity_.
        return n;
    }""",
"""    size_t round(size_t n) const {
        // TODO 1: round n up to a multiple of granularity_.
        return (n + granularity_ - 1) / granularity_ * granularity_;
    }"""),
("""    bool grow(size_t bytes) {
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
    }""",
"""    //
    // The design: in place first. Whoever holds data() (here main, which
    // keeps `before` and fills through it) keeps a valid pointer, and a
    // grow in place waits for nobody: the device is never stopped. Only
    // when the driver will not give the addresses right after the
    // reservation does the buffer move, and then it must wait for every
    // stream that may still use the old addresses (it cannot know which:
    // a device-wide wait).
    bool grow(size_t bytes) {
        size_t want = round(bytes);
        if (want <= mapped_) return true;
        if (want > reserved_) {
            // TODO 2: make room past the reservation, keeping the data: your
            // design (grow in place where you can, or move; see the lesson).
            // Every range you reserve must be given back in the end.
            if (!more_addresses(want)) return false;
        }
        // TODO 3: make the memory from mapped_ to want: a physical
        // allocation, mapped right after what is mapped and opened for
        // reads and writes, its handle kept in chunks_ for release().
        const size_t size = want - mapped_;
        CUmemGenericAllocationHandle h;
        CU(cuMemCreate(&h, size, &prop_, 0));
        if (!map_chunk(base_ + mapped_, size, h)) {
            cuMemRelease(h);
            return false;
        }
        chunks_.push_back({h, size});
        mapped_ = want;
        return true;
    }"""),
("""    bool release() {
        // TODO 4: tear down in an order the driver accepts.
        return false;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return true;
    }""",
"""    bool release() {
        // TODO 4: tear down in an order the driver accepts.
        // Each mapping goes, then its memory, then the addresses: every
        // range with the size it was reserved with.
        bool ok = true;
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            ok = cuMemUnmap(base_ + off, c.bytes) == CUDA_SUCCESS && ok;
            ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
            off += c.bytes;
        }
        chunks_.clear();
        if (base_ != 0) ok = free_ranges() && ok;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return ok;
    }"""),
("""    size_t granularity_ = 0, reserved_ = 0, mapped_ = 0;
    std::vector<Chunk> chunks_;
};""",
"""    size_t granularity_ = 0, reserved_ = 0, mapped_ = 0;
    std::vector<Chunk> chunks_;
    // The ranges reserved in place after the first one, side by side: the
    // first starts at base_ and holds reserved_ less all of these.
    struct Range {
        CUdeviceptr base;
        size_t bytes;
    };
    std::vector<Range> after_;

    // map_chunk maps handle h at addr and opens it; on failure nothing
    // stays mapped.
    bool map_chunk(CUdeviceptr addr, size_t size, CUmemGenericAllocationHandle h) {
        CU(cuMemMap(addr, size, 0, h, 0));
        CUresult r = cuMemSetAccess(addr, size, &access_, 1);
        if (r != CUDA_SUCCESS) {
            cuMemUnmap(addr, size);
            fprintf(stderr, "cuMemSetAccess failed (%d)\\n", (int)r);
            return false;
        }
        return true;
    }

    // free_ranges frees the first range and the ones after it.
    bool free_ranges() {
        size_t first = reserved_;
        for (const Range& r : after_) first -= r.bytes;
        bool ok = cuMemAddressFree(base_, first) == CUDA_SUCCESS;
        for (const Range& r : after_) ok = cuMemAddressFree(r.base, r.bytes) == CUDA_SUCCESS && ok;
        after_.clear();
        return ok;
    }

    // more_addresses makes the reservation want bytes long: in place
    // when the driver grants the addresses right after it, else by moving.
    bool more_addresses(size_t want) {
        const size_t extra = want - reserved_;
        const CUdeviceptr next = base_ + reserved_;
        CUdeviceptr got = 0;
        if (cuMemAddressReserve(&got, extra, granularity_, next, 0) == CUDA_SUCCESS) {
            if (got == next) {
                after_.push_back({got, extra});
                reserved_ = want;
                return true;
            }
            cuMemAddressFree(got, extra);   // placed elsewhere: no use to us
        }
        return move_to(want);
    }

    // move_to maps every chunk into a new range of want bytes, at the
    // same offsets, waits for the old addresses' users, and takes the old
    // range down.
    bool move_to(size_t want) {
        CUdeviceptr nb = 0;
        CU(cuMemAddressReserve(&nb, want, granularity_, 0, 0));
        size_t off = 0, done = 0;
        for (; done < chunks_.size(); done++) {
            if (!map_chunk(nb + off, chunks_[done].bytes, chunks_[done].handle)) break;
            off += chunks_[done].bytes;
        }
        if (done < chunks_.size() || cudaDeviceSynchronize() != cudaSuccess) {
            off = 0;
            for (size_t i = 0; i < done; i++) {
                cuMemUnmap(nb + off, chunks_[i].bytes);
                off += chunks_[i].bytes;
            }
            cuMemAddressFree(nb, want);
            return false;
        }
        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        if (!free_ranges()) return false;
        base_ = nb;
        reserved_ = want;
        return true;
    }
};"""),
]

W = []

W.append(('hint-taken-as-granted', dict(
    kind='a latent branch the default arguments never take',
    mistake='the in-place path keeps any range the driver reserves for the hint, without checking that it starts exactly at the hint.',
    **{'why it is wrong': 'the hint is only a hint: when the addresses after the reservation are taken (the hidden run with TAKEN 1), the driver places the range elsewhere, the buffer believes it owns the addresses after its reservation, and the new chunk is mapped where nothing was reserved. The default run, where the driver grants the hint, never shows it.'},
    source='NVIDIA/DALI#3128 ("allocation with a hint fails on some drivers": try more hints, fall back when the hint is not honoured); the driver API reference, cuMemAddressReserve ("treats it as a hint about where to place the reservation").',
), [
("""        if (cuMemAddressReserve(&got, extra, granularity_, next, 0) == CUDA_SUCCESS) {
            if (got == next) {
                after_.push_back({got, extra});
                reserved_ = want;
                return true;
            }
            cuMemAddressFree(got, extra);   // placed elsewhere: no use to us
        }""",
"""        if (cuMemAddressReserve(&got, extra, granularity_, next, 0) == CUDA_SUCCESS) {
            after_.push_back({got, extra});   // the range after ours
            reserved_ = want;
            return true;
        }"""),
]))

W.append(('remapped-chunks-not-opened', dict(
    kind='a missing call on a branch the default run never takes',
    mistake='a move maps the existing chunks into the new range with cuMemMap alone, without cuMemSetAccess, thinking the chunks kept the access they were given at their first mapping.',
    **{'why it is wrong': 'access belongs to a mapping, not to the memory: a chunk mapped again at new addresses starts with no access, and the first kernel that touches the old part at its new address faults. The default run grows in place and never moves; the hidden run with the addresses taken does.'},
    source='the lesson (day 72, "Mapped but not accessible": "a chunk mapped again at new addresses starts with no access too"); microsoft/mscclpp#631 (an illegal memory access from touching a VMM range before its mapping was complete).',
), [
("""            if (!map_chunk(nb + off, chunks_[done].bytes, chunks_[done].handle)) break;""",
"""            if (cuMemMap(nb + off, chunks_[done].bytes, 0, chunks_[done].handle, 0) != CUDA_SUCCESS) break;"""),
]))

W.append(('one-free-for-side-by-side-ranges', dict(
    kind='a wrong size: one free for several reservations',
    mistake='release frees the whole span with one cuMemAddressFree(base_, reserved_), as if the ranges reserved side by side had become one.',
    **{'why it is wrong': 'each reservation is freed on its own, with the address and the size it was reserved with: a free that covers two side-by-side ranges is refused, and both stay reserved. The program\'s last check finds the addresses still taken.'},
    source='the driver API reference, cuMemAddressFree ("The size must match what was given to memAddressReserve and the ptr given must match what was returned"); the lesson (day 72: "each range is freed on its own later, with the size it was reserved with").',
), [
("""        if (base_ != 0) ok = free_ranges() && ok;""",
"""        if (base_ != 0) ok = cuMemAddressFree(base_, reserved_) == CUDA_SUCCESS && ok;
        after_.clear();"""),
]))

W.append(('mapping-left-on-access-failure', dict(
    kind='a leak on an error path',
    mistake='when cuMemSetAccess fails, map_chunk returns false and leaves the chunk mapped; grow then releases the handle.',
    **{'why it is wrong': 'the mapping keeps the memory alive after cuMemRelease, and a range that is still mapped cannot be freed: release() and the caller\'s clean-up fail, and the device memory and the addresses leak. No default run makes cuMemSetAccess fail.'},
    source='kvcache-ai/Mooncake#2380 (the same inverted clean-up order found "in allocatePinnedLocalMemory()\'s cuMemSetAccess failure path"); the lesson (day 72: "cuMemAddressFree of a range that is still mapped fails").',
), [
("""        if (r != CUDA_SUCCESS) {
            cuMemUnmap(addr, size);
            fprintf(stderr, "cuMemSetAccess failed (%d)\\n", (int)r);""",
"""        if (r != CUDA_SUCCESS) {
            fprintf(stderr, "cuMemSetAccess failed (%d)\\n", (int)r);"""),
]))

W.append(('old-ranges-freed-with-new-size', dict(
    kind='an order-of-updates mistake on the move branch',
    mistake='move_to sets reserved_ to the new size before it frees the old ranges, so the first old range is freed with the new range\'s size.',
    **{'why it is wrong': 'cuMemAddressFree needs the size the range was reserved with: the free is refused, grow reports failure, and the old addresses stay reserved. Only a move reaches this code, which the default run (in place) never does.'},
    source='the driver API reference, cuMemAddressFree; NVIDIA/open-gpu-kernel-modules#948 ("range.size was used instead of the actual mapped fragment size" when unmapping).',
), [
("""        if (!free_ranges()) return false;
        base_ = nb;
        reserved_ = want;
        return true;""",
"""        reserved_ = want;
        if (!free_ranges()) return false;
        base_ = nb;
        return true;"""),
]))

build('vmm-growable', 'exercises/day072/growable.cu', CORRECT, C, W)
