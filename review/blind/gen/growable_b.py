ID = "vmm-growable"
DIR = "vmm-growable-b"
SRC = "exercises/day072/growable.cu"
NOTE = "A second blind set for vmm-growable, written later by another helper from the lesson and the student file alone, without sight of the first set (`../vmm-growable/`) beyond its file names. Correct design: a move reserves at least twice the old range (so that later grows fit), maps every chunk again at its offset, opens the whole mapped part with one `cuMemSetAccess`, waits with `cudaDeviceSynchronize`, unmaps the old range with one `cuMemUnmap` over all its mappings (as NVIDIA's growable-vector sample does) and frees its addresses; then it falls through to the ordinary grow, which maps one new chunk after what is mapped. `release` unmaps the whole mapped range with one call, releases each handle, frees the addresses."


def H(kind, mistake, why, source):
    return {"kind": kind, "mistake": mistake, "why it is wrong": why, "source": source}


MOVE = """            // The move: a range at least twice the old one, so that the next
            // grows fit; every chunk mapped again at its own offset and the
            // whole mapped part opened; the old range unmapped once the GPU
            // is done with its addresses, and given back.
            const size_t bigger = std::max(want, 2 * reserved_);
            CUdeviceptr moved = 0;
            CU(cuMemAddressReserve(&moved, bigger, granularity_, 0, 0));
            size_t offset = 0;
            for (const Chunk& c : chunks_) {
                CU(cuMemMap(moved + offset, c.bytes, 0, c.handle, 0));
                offset += c.bytes;
            }
            if (mapped_ > 0) CU(cuMemSetAccess(moved, mapped_, &access_, 1));
            if (cudaDeviceSynchronize() != cudaSuccess) return false;   // kernels queued on the old addresses
            if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
            CU(cuMemAddressFree(base_, reserved_));
            base_ = moved;
            reserved_ = bigger;
            // and on to the ordinary grow, in the new range
"""

E = [
("""        // TODO 1: round n up to a multiple of granularity_.
        return n;""", """        const size_t g = granularity_;
        return n % g == 0 ? n : n + (g - n % g);"""),
("""            // TODO 2: reserve a larger range, map every chunk at the same
            // offset in it and open it, then unmap the old range and give
            // its addresses back.
            return false;
""", MOVE),
("""        // TODO 3: make the memory from mapped_ to want: a physical
        // allocation, mapped right after what is mapped and opened for
        // reads and writes, its handle kept in chunks_ for release().
        return false;""", """        Chunk c = {0, want - mapped_};
        CU(cuMemCreate(&c.handle, c.bytes, &prop_, 0));
        if (cuMemMap(base_ + mapped_, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {
            cuMemRelease(c.handle);
            fprintf(stderr, "grow: cuMemMap of %zu bytes at offset %zu failed\\n", c.bytes, mapped_);
            return false;
        }
        chunks_.push_back(c);
        CU(cuMemSetAccess(base_ + mapped_, c.bytes, &access_, 1));
        mapped_ = want;
        return true;"""),
("""        // TODO 4: tear down in an order the driver accepts.
        return false;
""", """        // Unmap (one call over every mapping), release the handles, and
        // only then free the addresses: a mapped range cannot be freed.
        if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
        for (const Chunk& c : chunks_) CU(cuMemRelease(c.handle));
        chunks_.clear();
        if (base_ != 0) CU(cuMemAddressFree(base_, reserved_));
"""),
]

CORRECT = (H("correct",
             "None intended: round by the remainder; a move that reserves max(want, twice the old range), maps each chunk again at its offset, opens the mapped part, waits with cudaDeviceSynchronize, unmaps the old range with one cuMemUnmap and frees it, then grows in place; release with one cuMemUnmap, a cuMemRelease per chunk, then cuMemAddressFree.",
             "Correct: every size is a multiple of the granularity; the data stay in the same physical memory and nothing is copied; the old addresses are unmapped only after every kernel queued on them has run (cudaDeviceSynchronize waits for every stream, the legacy stream's fills included); one cuMemUnmap over contiguous mappings is what NVIDIA's own growable vector does; the handles are all released and the addresses freed after the unmap, so every reservation is free again.",
             "own; one cuMemUnmap over several mappings: NVIDIA's vectorAddMMAP / growable-vector samples (the blog 'Introducing Low-Level GPU Virtual Memory Management')"),
           E)

WRONGS = [
("round-exact-multiple",
 H("rounding that adds a unit to exact multiples (output shows only figures)",
   "round is written as (n / g + 1) * g, 'the next multiple up', which is right for every size that is not already a multiple of the granularity.",
   "An exact multiple gets one unit more than it needs: 100 MiB, a multiple of 2 MiB, maps 102 MiB (106954752 bytes instead of 104857600), and every grow asks for a unit it does not use. The data are right and everything is given back; only the bytes mapped, against what the lesson says a 100 MiB request maps, show it.",
   "http://qs1969.pair.com/~perl2/bare/?displaytype=displaycode&node_id=270962&part=2 (a roundup written as (int(n / d) + 1) * d) and https://newbe.dev/python-get-the-next-multiple-of-a-given-number-code-example (n + (a - n % a), which adds a whole unit to a multiple); issue 36's kind 'sizes that are exact multiples'"),
 [("""        return n % g == 0 ? n : n + (g - n % g);""", """        return (n / g + 1) * g;   // the next multiple up""")]),
("move-by-copy",
 H("the move copies the data into new memory (output identical)",
   "Past the reservation the student does what a growing buffer usually does: new physical memory for everything mapped so far, mapped into the larger range, the old contents copied there with cudaMemcpy, and the old chunks released.",
   "The exercise (and the point of VMM) is a move that maps the same memory again at the new addresses and copies nothing. This one copies the whole buffer device to device and, for a moment, holds both copies. The copy is ordered after the fills (the legacy stream) and before the unmap (the wait), so the data are right; only the copies and the cuMemCreate calls counted show it.",
   "own (the lesson's first paragraph: 'grown by allocating a bigger one, copying, and freeing the old')"),
 [(MOVE, """            // The move: a larger range with new memory for what is mapped,
            // the old contents copied into it, the old memory given back.
            const size_t bigger = std::max(want, 2 * reserved_);
            CUdeviceptr moved = 0;
            CU(cuMemAddressReserve(&moved, bigger, granularity_, 0, 0));
            if (mapped_ > 0) {
                Chunk whole = {0, mapped_};
                CU(cuMemCreate(&whole.handle, whole.bytes, &prop_, 0));
                CU(cuMemMap(moved, whole.bytes, 0, whole.handle, 0));
                CU(cuMemSetAccess(moved, whole.bytes, &access_, 1));
                if (cudaMemcpy((void*)moved, (const void*)base_, mapped_, cudaMemcpyDeviceToDevice) != cudaSuccess) return false;
                if (cudaDeviceSynchronize() != cudaSuccess) return false;
                CU(cuMemUnmap(base_, mapped_));
                for (const Chunk& c : chunks_) CU(cuMemRelease(c.handle));
                chunks_.assign(1, whole);
            }
            CU(cuMemAddressFree(base_, reserved_));
            base_ = moved;
            reserved_ = bigger;
            // and on to the ordinary grow, in the new range
""")]),
("sync-after-unmap",
 H("the wait placed after the unmap it should protect (output identical, mostly)",
   "The move has its wait, but after cuMemUnmap of the old range and before cuMemAddressFree: the student reads 'wait before you give the old range back' as a wait before freeing the addresses.",
   "The unmap is what takes the memory from under the old addresses; a kernel queued on them before the move (the harness's fill of the first megabyte) may still be running when they are unmapped, and it faults or its writes are lost. The reservation and mapping calls before the unmap take long enough that the fill has usually finished, so the data are right on most runs.",
   "own (the lesson's pitfall 'Unmapping under running kernels': 'a move without any wait lost the data a kernel queued just before it was still writing')"),
 [("""            if (cudaDeviceSynchronize() != cudaSuccess) return false;   // kernels queued on the old addresses
            if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
            CU(cuMemAddressFree(base_, reserved_));""", """            if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
            if (cudaDeviceSynchronize() != cudaSuccess) return false;   // nothing may use the old range when it is freed
            CU(cuMemAddressFree(base_, reserved_));""")]),
("handle-leak-on-move",
 H("a chunk's handle never released (output identical)",
   "The move branch makes the new part itself (create, map, open) and returns, a copy of the in-place code without its chunks_.push_back: the new chunk's handle is kept nowhere.",
   "release unmaps the whole mapped range with one call, so the unmap, the address free and the harness's checks all succeed; but the new chunk's handle is never released, and memory with an unreleased handle is not freed when its last mapping goes (cuMemUnmap: freed 'if there are no existing mappings and there are no unreleased memory handles'). 98 MiB stay allocated until the process ends; with the defaults only a count of cuMemCreate against cuMemRelease shows it (a third grow that moves again maps only the chunks it knows, and its cuMemSetAccess over the whole mapped part fails).",
   "CUDA Driver API reference, cuMemUnmap and cuMemRelease; the mistake is own"),
 [("""            reserved_ = bigger;
            // and on to the ordinary grow, in the new range
""", """            reserved_ = bigger;
            Chunk c = {0, want - mapped_};
            CU(cuMemCreate(&c.handle, c.bytes, &prop_, 0));
            CU(cuMemMap(base_ + mapped_, c.bytes, 0, c.handle, 0));
            CU(cuMemSetAccess(base_ + mapped_, c.bytes, &access_, 1));
            mapped_ = want;
            return true;
""")]),
("move-reserve-unrounded",
 H("an unrounded size on a branch the defaults never take",
   "The larger range is sized from the request as given (max(bytes, twice the old range)) instead of the rounded one: with the defaults twice the old range (128 MiB) wins, so the request's own size is never used.",
   "When the request is more than twice the old range and not a multiple of the granularity (301 MiB in a 64 MiB reservation, say), the new range is asked for with an unrounded size and is smaller than the rounded size the chunks are mapped to: the reservation or the last mapping fails and the grow fails. Only a run with other sizes than the defaults takes that branch.",
   "own (issue 36's kind 'arguments other than the defaults')"),
 [("""            const size_t bigger = std::max(want, 2 * reserved_);""", """            const size_t bigger = std::max(bytes, 2 * reserved_);""")]),
]
