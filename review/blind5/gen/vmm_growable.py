STUDENT = "exercises/day072/growable.cu"
DIR = "vmm-growable"
EXT = "cu"
COMMENT = "//"
CORRECT_HEADER = dict(
    kind="correct (a design of its own)",
    mistake="""none. Past the reservation the buffer always moves, never tries in
    place: a new reservation of at least twice the old one, every chunk mapped
    into it at its old offset and opened (one cuMemSetAccess over the mapped
    part), then cuCtxSynchronize, then ONE cuMemUnmap of the whole old mapped
    part and the old range freed. release unmaps the mapped part in one call
    (as NVIDIA's VMM samples do), releases each handle, and frees the range.""",
    why="""it is not: the data is never copied; the old addresses are unmapped only
    after every stream's work is done; every handle is released once and every
    range reserved is freed with the size it was reserved with.""",
    source="""own design from the lesson (day 72, "Granularity", "Pitfalls", "Exercise:
    vmm-growable"); the driver API reference, Virtual Memory Management
    (cuMemUnmap may span several mappings); issue 36's note that one cuMemUnmap
    of several mappings is a correct design.""")

CORRECT = [
("""        // TODO 1: round n up to a multiple of granularity_.
        return n;""",
"""        if (granularity_ == 0) return n;
        return (n + granularity_ - 1) / granularity_ * granularity_;"""),
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
    }""",
"""        if (want > reserved_) {
            const size_t size = round(std::max(want, 2 * reserved_));
            CUdeviceptr moved = 0;
            CU(cuMemAddressReserve(&moved, size, granularity_, 0, 0));
            size_t off = 0;
            for (const Chunk& c : chunks_) {
                CU(cuMemMap(moved + off, c.bytes, 0, c.handle, 0));
                off += c.bytes;
            }
            if (mapped_ > 0) CU(cuMemSetAccess(moved, mapped_, &access_, 1));
            // the old addresses may still be used by any stream's work
            CU(cuCtxSynchronize());
            if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
            CU(cuMemAddressFree(base_, reserved_));
            base_ = moved;
            reserved_ = size;
        }
        const size_t extra = want - mapped_;
        Chunk c;
        c.bytes = extra;
        CU(cuMemCreate(&c.handle, extra, &prop_, 0));
        if (cuMemMap(base_ + mapped_, extra, 0, c.handle, 0) != CUDA_SUCCESS) {
            cuMemRelease(c.handle);
            return false;
        }
        if (cuMemSetAccess(base_ + mapped_, extra, &access_, 1) != CUDA_SUCCESS) {
            cuMemUnmap(base_ + mapped_, extra);
            cuMemRelease(c.handle);
            return false;
        }
        chunks_.push_back(c);
        mapped_ = want;
        return true;
    }"""),
("""        // TODO 4: tear down in an order the driver accepts.
        return false;
        base_ = 0;""",
"""        if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
        for (const Chunk& c : chunks_) CU(cuMemRelease(c.handle));
        chunks_.clear();
        if (base_ != 0) CU(cuMemAddressFree(base_, reserved_));
        base_ = 0;"""),
]

WRONG = [
("chunk-created-at-requested-size", dict(
    kind="a wrong size: the physical allocation made at the size asked for, not a whole number of granularity units",
    mistake="""the new chunk is created, mapped and opened with bytes - mapped_ (the
    caller's size) instead of the rounded want - mapped_, while mapped_ still
    moves to the rounded size.""",
    why="""cuMemCreate, cuMemMap and cuMemSetAccess take only whole multiples of the
    granularity: grow(1 MiB) on a device whose granularity is 2 MiB fails at
    cuMemCreate with an invalid value error.""",
    source="""fzyzcjy/torch_memory_saver#82 ("forwards the original cudaMalloc size
    directly to cuMemCreate... any smaller or otherwise unaligned request fails
    with CUDA_ERROR_INVALID_VALUE")."""),
 [("""        const size_t extra = want - mapped_;""",
   """        const size_t extra = bytes - mapped_;""")]),
("unmap-whole-reservation", dict(
    kind="a wrong range: the teardown unmaps the whole reservation, its unmapped tail included",
    mistake="""release calls cuMemUnmap(base_, reserved_), the whole reserved range,
    instead of the part that is mapped.""",
    why="""cuMemUnmap must cover mapped memory only; after the move the reservation
    is twice the old one and only 100 of its 128 MiB are mapped, so the unmap
    fails, release stops there, and the chunks and the range are never given
    back.""",
    source="""pytorch/pytorch#188008 ("bulk cuMemUnmap of unmapped range": an unmap over a
    run that includes never-mapped slots errors, in the expandable segments'
    destructor)."""),
 [("""        if (mapped_ > 0) CU(cuMemUnmap(base_, mapped_));
        for (const Chunk& c : chunks_) CU(cuMemRelease(c.handle));""",
   """        if (mapped_ > 0) CU(cuMemUnmap(base_, reserved_));
        for (const Chunk& c : chunks_) CU(cuMemRelease(c.handle));""")]),
("handles-never-released", dict(
    kind="a leak: the physical memory's handles never released",
    mistake="""release unmaps the mapped part and frees the addresses but never calls
    cuMemRelease on the chunks' handles, taking the unmap for the end of the
    memory.""",
    why="""the driver frees physical memory only once every mapping is unmapped AND
    every reference from cuMemCreate is released: all 100 MiB stay allocated
    until the process ends, though release() says ok.""",
    source="""NVIDIA/cuda-python#2884 ("VirtualMemoryResource never dropped the reference
    that cuMemCreate returns... every buffer's physical memory stayed allocated
    after close()")."""),
 [("""        for (const Chunk& c : chunks_) CU(cuMemRelease(c.handle));
        chunks_.clear();""",
   """        chunks_.clear();""")]),
]
