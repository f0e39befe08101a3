EXERCISE = 'vmm-growable'
STUDENT = 'exercises/day072/growable.cu'
EXT = 'cu'
TODO = [
("""        // TODO 1: round n up to a multiple of granularity_.
        return n;""",
"""        return (n + granularity_ - 1) / granularity_ * granularity_;"""),
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
"""        if (want > reserved_ && !move(std::max(2 * reserved_, want))) return false;
        const size_t add = want - mapped_;
        CUmemGenericAllocationHandle h;
        CU(cuMemCreate(&h, add, &prop_, 0));
        if (cuMemMap(base_ + mapped_, add, 0, h, 0) != CUDA_SUCCESS) {
            cuMemRelease(h);
            return false;
        }
        if (cuMemSetAccess(base_ + mapped_, add, &access_, 1) != CUDA_SUCCESS) {
            cuMemUnmap(base_ + mapped_, add);
            cuMemRelease(h);
            return false;
        }
        chunks_.push_back({h, add});
        maps_.push_back({base_ + mapped_, add});
        mapped_ = want;
        return true;
    }"""),
("""        // TODO 4: tear down in an order the driver accepts.
        return false;
        base_ = 0;
        mapped_ = reserved_ = 0;
        return true;
    }""",
"""        // Every mapping of every range first (the caller has waited for
        // the work on them), then each chunk's handle once, then each
        // range's addresses, with the size it was reserved with. A step
        // that fails does not stop the others.
        bool ok = true;
        old_.push_back({base_, reserved_, maps_});
        for (const Range& r : old_)
            for (const Mapping& m : r.maps) ok = cuMemUnmap(m.at, m.bytes) == CUDA_SUCCESS && ok;
        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
        for (const Range& r : old_)
            if (r.base != 0) ok = cuMemAddressFree(r.base, r.size) == CUDA_SUCCESS && ok;
        old_.clear();
        maps_.clear();
        chunks_.clear();
        base_ = 0;
        mapped_ = reserved_ = 0;
        return ok;
    }"""),
("""    struct Chunk {
        CUmemGenericAllocationHandle handle;
        size_t bytes;
    };""",
"""    struct Chunk {
        CUmemGenericAllocationHandle handle;
        size_t bytes;
    };
    // A mapping of a chunk at some addresses, and a range of addresses
    // with the mappings in it.
    struct Mapping {
        CUdeviceptr at;
        size_t bytes;
    };
    struct Range {
        CUdeviceptr base;
        size_t size;
        std::vector<Mapping> maps;
    };
    // The mappings in the current range (base_, reserved_), and the
    // ranges the buffer moved out of, each still mapped.
    std::vector<Mapping> maps_;
    std::vector<Range> old_;

    // Design: always move past the reservation, into a range twice as
    // large (or the request's size, if larger), every chunk mapped again
    // at its offset. The old range is not unmapped at the move: its
    // mappings stay until release(), so nothing waits at a grow (the
    // caller's streams, which the buffer does not know, may still be
    // writing through the old addresses, and those writes land in the
    // same memory), and pointers into the old range stay valid until the
    // buffer is released. The cost is address space, not memory: each
    // chunk is mapped once in every range the buffer has had.
    bool move(size_t size) {
        CUdeviceptr nb = 0;
        CU(cuMemAddressReserve(&nb, size, granularity_, 0, 0));
        std::vector<Mapping> maps;
        size_t off = 0;
        bool ok = true;
        for (const Chunk& c : chunks_) {
            if (cuMemMap(nb + off, c.bytes, 0, c.handle, 0) != CUDA_SUCCESS) {
                ok = false;
                break;
            }
            maps.push_back({nb + off, c.bytes});
            if (cuMemSetAccess(nb + off, c.bytes, &access_, 1) != CUDA_SUCCESS) {
                ok = false;
                break;
            }
            off += c.bytes;
        }
        if (!ok) {
            for (const Mapping& m : maps) cuMemUnmap(m.at, m.bytes);
            cuMemAddressFree(nb, size);
            return false;
        }
        old_.push_back({base_, reserved_, maps_});
        maps_ = maps;
        base_ = nb;
        reserved_ = size;
        return true;
    }"""),
]
CORRECT = dict(
    kind='correct',
    mistake="none: always moves past the reservation, into a range twice as large (or the request's size), every chunk mapped again at its offset and opened; the old ranges stay mapped until release, so no grow waits and old pointers stay valid; release unmaps every mapping of every range, releases each handle once and frees each range with its own size",
    **{'why it is wrong': "it is not: nothing is unmapped while a kernel may use it (the old mappings go only in release, which the program calls after its device synchronisation), and every range and handle is given back once"},
    source='none (written from the lesson and the student file)')
WRONG = [
('only-the-last-old-range-kept',
 dict(kind='wrong (a branch the defaults never take: a second move, THEN_MIB)',
      mistake="the range the buffer moved out of is kept in one field, not a list, so a second move overwrites the first old range, whose mappings and addresses are then never given back",
      **{'why it is wrong': "with one move (the default run) the field holds the one old range and release gives everything back; with THEN_MIB past the second reservation the buffer moves again, the first range (still mapped) is forgotten, and release leaves its mapping and its 64 MiB of addresses behind: \"every reservation given back: no\" on that run only, and the first chunk's memory lives on through the forgotten mapping"},
      source='ai-dynamo/modelexpress#282 (review: an allocation record erased before its cleanup succeeded, so close could never recover it), Project-HAMi/HAMi-core#257 (a free of an allocation the tracker no longer knew leaked it)'),
 [("""    std::vector<Range> old_;
""",
   """    Range old_ = {0, 0, {}};   // the range the buffer moved out of
"""),
  ("""        bool ok = true;
        old_.push_back({base_, reserved_, maps_});
        for (const Range& r : old_)
            for (const Mapping& m : r.maps) ok = cuMemUnmap(m.at, m.bytes) == CUDA_SUCCESS && ok;
        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
        for (const Range& r : old_)
            if (r.base != 0) ok = cuMemAddressFree(r.base, r.size) == CUDA_SUCCESS && ok;
        old_.clear();""",
   """        bool ok = true;
        const Range ranges[2] = {old_, {base_, reserved_, maps_}};
        for (const Range& r : ranges)
            for (const Mapping& m : r.maps) ok = cuMemUnmap(m.at, m.bytes) == CUDA_SUCCESS && ok;
        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
        for (const Range& r : ranges)
            if (r.base != 0) ok = cuMemAddressFree(r.base, r.size) == CUDA_SUCCESS && ok;
        old_ = {0, 0, {}};"""),
  ("""        old_.push_back({base_, reserved_, maps_});
        maps_ = maps;""",
   """        old_ = {base_, reserved_, maps_};
        maps_ = maps;""")]),
('new-range-twice-the-old-only',
 dict(kind='wrong (a size on a boundary: a request more than twice the reservation)',
      mistake="a move reserves a range twice the old one, whatever the request, so a request larger than that does not fit the new range and its chunk is mapped past the range's end",
      **{'why it is wrong': "the default run grows 1 MiB to 100 MiB in 64 MiB, and 128 MiB holds it; growing to 200 MiB in 64 MiB (or to 100 in a 32 MiB reservation) maps the new chunk past the 128 MiB range, cuMemMap refuses, and the grow fails where the exercise asks for room for the request"},
      source='google/flatbuffers#1 ("Don\'t just blindly double the buffer size"), boostorg/signals2#16 (a grow that did not give the capacity asked for: "not growing capacity when we want more")'),
 [("""        if (want > reserved_ && !move(std::max(2 * reserved_, want))) return false;""",
   """        if (want > reserved_ && !move(2 * reserved_)) return false;""")]),
('handle-released-at-every-mapping',
 dict(kind='wrong (a teardown the output does not show: a handle released once per mapping)',
      mistake="release walks every mapping of every range and releases the chunk's handle at each one (a chunk mapped in two ranges is released twice), ignoring what cuMemRelease answers, as a best-effort teardown",
      **{'why it is wrong': "each cuMemCreate is matched by one cuMemRelease; after a move every chunk but the last is mapped in two ranges, so its handle is released a second time, a call on a handle the driver has already dropped (an error the loop throws away, or the release of whatever handle now has that value). The unmaps and frees succeed and the run prints \"release: ok\""},
      source='fzyzcjy/torch_memory_saver#92 (freeing a paused allocation released its VMM handle a second time), vllm-project/vllm#46054 (cuMemRelease of handles already released on an error path: a double free at teardown)'),
 [("""    struct Mapping {
        CUdeviceptr at;
        size_t bytes;
    };""",
   """    struct Mapping {
        CUdeviceptr at;
        size_t bytes;
        CUmemGenericAllocationHandle handle;
    };"""),
  ("""            maps.push_back({nb + off, c.bytes});""",
   """            maps.push_back({nb + off, c.bytes, c.handle});"""),
  ("""        maps_.push_back({base_ + mapped_, add});""",
   """        maps_.push_back({base_ + mapped_, add, h});"""),
  ("""            for (const Mapping& m : r.maps) ok = cuMemUnmap(m.at, m.bytes) == CUDA_SUCCESS && ok;
        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;""",
   """            for (const Mapping& m : r.maps) {
                ok = cuMemUnmap(m.at, m.bytes) == CUDA_SUCCESS && ok;
                cuMemRelease(m.handle);   // best effort: its memory goes with its last mapping
            }""")]),
]
