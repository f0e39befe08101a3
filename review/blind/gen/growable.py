ID = "vmm-growable"
SRC = "exercises/day072/growable.cu"
NOTE = "Correct design: the move reserves max(want, twice the old reservation), maps each chunk at its offset, opens the whole mapped range with one cuMemSetAccess, waits for the device, and unmaps the old range with ONE cuMemUnmap over all its mappings; release likewise unmaps with one call. A grow whose map or access fails releases what it made. (Not submitted, but also valid: growing in place by reserving at the hint address right after the reservation, as the vector of NVIDIA's blog post https://developer.nvidia.com/blog/introducing-low-level-gpu-virtual-memory-management/ does, which also unmaps all its mappings with one cuMemUnmap and opens a whole new range with one cuMemSetAccess; the lesson says growing in place cannot be done.) Build with -lcuda."
def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}
E = [
("""        // TODO 1: round n up to a multiple of granularity_.
        return n;""", """        return (n + granularity_ - 1) / granularity_ * granularity_;"""),
("""        if (want > reserved_) {
            // TODO 2: make room past the reservation, keeping the data: your
            // design (grow in place where you can, or move; see the lesson).
            // Every range you reserve must be given back in the end.
            return false;
        }
        // TODO 3: make the memory from mapped_ to want: a physical
        // allocation, mapped right after what is mapped and opened for
        // reads and writes, its handle kept in chunks_ for release().
        return false;
    }""", """        if (want > reserved_ && !move(std::max(want, 2 * reserved_))) return false;
        const size_t more = want - mapped_;
        CUmemGenericAllocationHandle h;
        CU(cuMemCreate(&h, more, &prop_, 0));
        if (cuMemMap(base_ + mapped_, more, 0, h, 0) != CUDA_SUCCESS) {
            cuMemRelease(h);
            return false;
        }
        if (cuMemSetAccess(base_ + mapped_, more, &access_, 1) != CUDA_SUCCESS) {
            cuMemUnmap(base_ + mapped_, more);
            cuMemRelease(h);
            return false;
        }
        chunks_.push_back({h, more});
        mapped_ = want;
        return true;
    }

    // move maps every chunk at its offset in a new reservation of bytes,
    // then gives the old one back; nothing is copied.
    bool move(size_t bytes) {
        CUdeviceptr nb = 0;
        CU(cuMemAddressReserve(&nb, bytes, granularity_, 0, 0));
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            if (cuMemMap(nb + off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {
                if (off > 0) cuMemUnmap(nb, off);
                cuMemAddressFree(nb, bytes);
                return false;
            }
            off += c.bytes;
        }
        // One call opens every mapping of the new range.
        if (mapped_ > 0 && cuMemSetAccess(nb, mapped_, &access_, 1) != CUDA_SUCCESS) {
            cuMemUnmap(nb, mapped_);
            cuMemAddressFree(nb, bytes);
            return false;
        }
        // Kernels queued on the old addresses must be done before they go.
        if (cudaDeviceSynchronize() != cudaSuccess) return false;
        if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_)); // all its mappings at once
        CU(cuMemAddressFree(base_, reserved_));
        base_ = nb;
        reserved_ = bytes;
        return true;
    }"""),
("""        // TODO 4: tear down in an order the driver accepts.
        return false;
        base_ = 0;""", """        bool ok = true;
        if (base_ != 0 && mapped_ > 0) ok = cuMemUnmap(base_, mapped_) == CUDA_SUCCESS;
        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
        chunks_.clear();
        if (base_ != 0) ok = cuMemAddressFree(base_, reserved_) == CUDA_SUCCESS && ok;
        if (!ok) return false;
        base_ = 0;"""),
]
CORRECT = (H("correct", "None intended: geometric re-reservation, one cuMemSetAccess and one cuMemUnmap per range, cleanup on a failed map.", "n/a", "own"), E)
WRONGS = [
 ("no-sync-before-unmap",
  H("unmapping under a running kernel",
    "The move unmaps the old range and frees its addresses without waiting for the kernels queued on them: the fill of 1s launched just before grow(100 MiB) may still be writing through the old addresses. On an idle GPU the tiny kernel is usually done by then and 'old data kept: 1' prints; when it is not, its writes fault or are lost.",
    "Day 72, 'Pitfalls' (Unmapping under running kernels): nothing orders cuMemUnmap after the kernels queued on those addresses; wait for them first.",
    "own"),
  [("""        // Kernels queued on the old addresses must be done before they go.
        if (cudaDeviceSynchronize() != cudaSuccess) return false;
""", "")]),
 ("leak-on-map-failure",
  H("leak on an error path",
    "When cuMemMap or cuMemSetAccess fails in grow, the function returns false through the CU macro and leaves the handle from cuMemCreate (and, after a failed access, the mapping) behind: nobody will ever release it. The default run never fails a map, so the output is perfect.",
    "Day 72, 'Exercise: vmm-growable': each handle is kept in chunks_ for release(), or given back; memory lives until its handle is released and its last mapping unmapped ('Freeing in the wrong order').",
    "own"),
  [("""        if (cuMemMap(base_ + mapped_, more, 0, h, 0) != CUDA_SUCCESS) {
            cuMemRelease(h);
            return false;
        }
        if (cuMemSetAccess(base_ + mapped_, more, &access_, 1) != CUDA_SUCCESS) {
            cuMemUnmap(base_ + mapped_, more);
            cuMemRelease(h);
            return false;
        }""", """        CU(cuMemMap(base_ + mapped_, more, 0, h, 0));
        CU(cuMemSetAccess(base_ + mapped_, more, &access_, 1));""")]),
 ("move-offset-zero",
  H("a branch the defaults never take (a second chunk)",
    "The move maps every chunk at the start of the new range instead of at its own offset (the offset is never advanced). With this program there is only ever one chunk when the buffer moves, so the output is perfect; a buffer grown twice inside its reservation and then moved fails to map, or would put the chunks on top of each other.",
    "Day 72, 'Pitfalls' (Running out of reservation): map every existing chunk at the same offset in the new range.",
    "own"),
  [("""                return false;
            }
            off += c.bytes;
        }""", """                return false;
            }
        }
        off = mapped_;""")]),
 ("sync-legacy-stream-only",
  H("partial drain before the unmap",
    "Before unmapping the old range the move waits with cudaStreamSynchronize(0), the legacy default stream, instead of the device. The harness launches its fills on that stream, so every line prints as expected; kernels a caller queued on its own non-blocking streams are not waited for and can still be writing through the old addresses.",
    "Day 72, 'Pitfalls' (Unmapping under running kernels): wait for the kernels queued on those addresses (the move calls cudaDeviceSynchronize); one stream's wait says nothing about the others.",
    "own"),
  [("""        if (cudaDeviceSynchronize() != cudaSuccess) return false;""",
    """        if (cudaStreamSynchronize(0) != cudaSuccess) return false; // the fills run on stream 0""")]),
 ("old-part-read-only",
  H("access rights narrowed in the move",
    "The move opens the remapped old chunks read-only ('they hold data already written') and only the new memory read-write. The harness only reads the old part after the move, so it prints 'old data kept: 1'; any later kernel that writes the buffer's first bytes faults.",
    "Day 72, 'Pitfalls' (Mapped but not accessible): a chunk mapped again at new addresses starts with no access, and the buffer must be opened for reads and writes (grow 'makes the first bytes of the buffer usable').",
    "own"),
  [("""        if (mapped_ > 0 && cuMemSetAccess(nb, mapped_, &access_, 1) != CUDA_SUCCESS) {""",
    """        CUmemAccessDesc readOnly = access_;
        readOnly.flags = CU_MEM_ACCESS_FLAGS_PROT_READ; // old data is only read from here on
        if (mapped_ > 0 && cuMemSetAccess(nb, mapped_, &readOnly, 1) != CUDA_SUCCESS) {""")]),
]
