import sys; sys.path.insert(0, '.')
from mk import build
src = open('../../exercises/day072/growable.cu').read()
D = 'vmm-growable/'
correct = [
("""        // TODO 1: round n up to a multiple of granularity_.
        return n;""",
"""        if (granularity_ == 0) return n;
        return (n + granularity_ - 1) / granularity_ * granularity_;"""),
("""    // grow makes the first bytes of the buffer usable, keeping what is
    // there.""",
"""    // Design: always move. The only pointers into the buffer are data()'s,
    // which main asks again after every grow, and a move costs one
    // cudaDeviceSynchronize (main's side stream may still write the old
    // addresses; we cannot know which streams use them). One range to keep
    // and free, one code path, and it doubles the reservation, so moves
    // are rare.
    //
    // grow makes the first bytes of the buffer usable, keeping what is
    // there."""),
("""            // TODO 2: make room past the reservation, keeping the data: your
            // design (grow in place where you can, or move; see the lesson).
            // Every range you reserve must be given back in the end.
            return false;
        }""",
"""            if (!move(round(std::max(want, 2 * reserved_)))) return false;
        }"""),
("""        // TODO 3: make the memory from mapped_ to want: a physical
        // allocation, mapped right after what is mapped and opened for
        // reads and writes, its handle kept in chunks_ for release().
        return false;
    }""",
"""        const size_t more = want - mapped_;
        CUmemGenericAllocationHandle h;
        CU(cuMemCreate(&h, more, &prop_, 0));
        const CUdeviceptr at = base_ + mapped_;
        if (cuMemMap(at, more, 0, h, 0) != CUDA_SUCCESS) {
            cuMemRelease(h);
            return false;
        }
        if (cuMemSetAccess(at, more, &access_, 1) != CUDA_SUCCESS) {
            cuMemUnmap(at, more);
            cuMemRelease(h);
            return false;
        }
        chunks_.push_back({h, more});
        mapped_ = want;
        return true;
    }"""),
("""        // TODO 4: tear down in an order the driver accepts.
        return false;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return true;
    }""",
"""        bool ok = true;
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            ok = cuMemUnmap(base_ + off, c.bytes) == CUDA_SUCCESS && ok;
            ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
            off += c.bytes;
        }
        chunks_.clear();
        if (base_ != 0) ok = cuMemAddressFree(base_, reserved_) == CUDA_SUCCESS && ok;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return ok;
    }"""),
("""private:
    struct Chunk {
        CUmemGenericAllocationHandle handle;
        size_t bytes;
    };""",
"""private:
    struct Chunk {
        CUmemGenericAllocationHandle handle;
        size_t bytes;
    };

    // move maps every chunk at its offset in a new reservation of bytes,
    // waits for the work that may still use the old addresses, then gives
    // them back. On a failure the old range stays as it was.
    bool move(size_t bytes) {
        CUdeviceptr nb = 0;
        CU(cuMemAddressReserve(&nb, bytes, granularity_, 0, 0));
        size_t off = 0, done = 0;
        bool ok = true;
        for (const Chunk& c : chunks_) {
            if (cuMemMap(nb + off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {
                ok = false;
                break;
            }
            off += c.bytes;
            done++;
        }
        if (ok && mapped_ > 0) ok = cuMemSetAccess(nb, mapped_, &access_, 1) == CUDA_SUCCESS;
        if (!ok) {
            off = 0;
            for (size_t i = 0; i < done; i++) {
                cuMemUnmap(nb + off, chunks_[i].bytes);
                off += chunks_[i].bytes;
            }
            cuMemAddressFree(nb, bytes);
            return false;
        }
        // Any stream may still read or write the old addresses.
        if (cudaDeviceSynchronize() != cudaSuccess) return false;
        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        CU(cuMemAddressFree(base_, reserved_));
        base_ = nb;
        reserved_ = bytes;
        return true;
    }"""),
]
H = """kind: correct
mistake: none: "always move": round to the granularity; past the reservation a new range
  of twice the old (or the request), every chunk mapped again at its offset and opened,
  cudaDeviceSynchronize before the old mappings are unmapped (one cuMemUnmap per chunk)
  and the old range freed; a new chunk of exactly the missing bytes, created, mapped and
  opened, undone on failure; release unmaps and releases each chunk, then frees the
  range, reporting every step.
why it is wrong: it is not (lesson day 72, "Your design decision": always move).
source: own"""
body = build(src, D + 'correct.cu', H, correct)
def wrong(slug, header, pairs):
    build(body, D + 'wrong-' + slug + '.cu', header, pairs)

wrong('new-range-leaked-on-failed-remap', """kind: wrong (a branch the defaults never take)
mistake: when mapping the old chunks into the new range fails, move returns at once with
  the CU macro, leaving the new range reserved and the chunks already mapped in it.
why it is wrong: the exercise says "Every range you reserve must be given back in the
  end"; the buffer forgets the new range, so release() never frees it, and a chunk
  mapped into it cannot be released cleanly (lesson day 72: "a mapped range's addresses
  cannot be freed"). Nothing fails on the defaults.
source: own""", [
("""        for (const Chunk& c : chunks_) {
            if (cuMemMap(nb + off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {
                ok = false;
                break;
            }
            off += c.bytes;
            done++;
        }
        if (ok && mapped_ > 0) ok = cuMemSetAccess(nb, mapped_, &access_, 1) == CUDA_SUCCESS;""",
"""        for (const Chunk& c : chunks_) {
            CU(cuMemMap(nb + off, c.bytes, 0, c.handle, 0));
            off += c.bytes;
            done++;
        }
        if (mapped_ > 0) CU(cuMemSetAccess(nb, mapped_, &access_, 1));"""),
])

wrong('chunk-whole-size', """kind: wrong (memory wasted, output the same)
mistake: the new chunk is created with the buffer's whole new size (want) instead of the
  bytes missing (want - mapped_), and only the missing bytes of it are mapped.
why it is wrong: cuMemCreate takes physical memory of the size asked for (driver API,
  cuMemCreate); the part of the handle never mapped is memory nobody can use, held until
  release, so the buffer holds about twice what it maps (lesson day 72: "create physical
  memory ... and map it into part of the range" is per chunk, "new memory after what is
  mapped"). cuMemMap of fewer bytes than the handle has is accepted ("offset + size
  must be less than the size of the memory allocation"), and every value read back is
  right.
source: https://nvidia.github.io/cuda-python/pr-preview/pr-3095/cuda-bindings/latest/module/generated/driver_v2/cuda.bindings._v2.driver.mem_map.html
  (the driver's cuMemMap text: a mapping may cover part of an allocation)""", [
("""        CU(cuMemCreate(&h, more, &prop_, 0));""",
"""        CU(cuMemCreate(&h, want, &prop_, 0)); // the buffer's size from now on"""),
])

wrong('release-stops-at-first-failure', """kind: wrong (a branch the defaults never take)
mistake: release uses the CU macro for every step, so the first step the driver refuses
  ends it: the chunks after it stay mapped and allocated and the range stays reserved.
why it is wrong: release "says whether the driver accepted each step", and gives
  "everything back"; stopping at the first refusal leaks the rest (driver API: each
  cuMemCreate needs its cuMemRelease, each reservation its cuMemAddressFree). On the
  defaults no step is refused.
source: own""", [
("""        bool ok = true;
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            ok = cuMemUnmap(base_ + off, c.bytes) == CUDA_SUCCESS && ok;
            ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
            off += c.bytes;
        }
        chunks_.clear();
        if (base_ != 0) ok = cuMemAddressFree(base_, reserved_) == CUDA_SUCCESS && ok;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return ok;""",
"""        size_t off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            CU(cuMemRelease(c.handle));
            off += c.bytes;
        }
        chunks_.clear();
        if (base_ != 0) CU(cuMemAddressFree(base_, reserved_));
        base_ = 0;
        mapped_ = reserved_ = 0;
        return true;"""),
])

wrong('event-record-as-wait', """kind: wrong (an API misread; race the output may not show)
mistake: before unmapping the old addresses, move records an event on the default stream
  and destroys it, taking cudaEventRecord for a wait for the work queued so far.
why it is wrong: cudaEventRecord only queues a marker and returns at once (runtime API,
  cudaEventRecord: asynchronous); nothing waits, so cuMemUnmap of the old addresses can
  run while main's side-stream kernel still writes them (lesson day 72, "Unmapping under
  running kernels"). The 1 MiB fill is usually over before the unmap on a fast GPU.
source: own""", [
("""        if (cudaDeviceSynchronize() != cudaSuccess) return false;""",
"""        cudaEvent_t idle;
        if (cudaEventCreateWithFlags(&idle, cudaEventDisableTiming) != cudaSuccess) return false;
        cudaEventRecord(idle, 0); // everything before this point is done
        cudaEventDestroy(idle);"""),
])
