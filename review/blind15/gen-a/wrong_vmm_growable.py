# Edits that make vmm-growable's wrong files from correct.cu (mkwrong.py).
WRONG = [
dict(slug='round-adds-a-unit-at-multiples',
 shows="default output: a size already a whole number of units gets one more: the 64 MiB reservation is 66 MiB, 'grow(100 MiB) ...: 106954752 bytes mapped' (104857600 wanted); data right; with TAKEN 1 main's blocker lands inside the buffer's own reservation and is refused ('addresses after the reservation taken: no')",
 mistake="round computes (n / granularity + 1) * granularity, 'the next multiple up'",
 why="rounding up must leave an exact multiple as it is: (n + g - 1) / g * g",
 source="own (an exact-multiple boundary; the lesson's pitfall on sizes)",
 edits=[('return (n + granularity_ - 1) / granularity_ * granularity_;','return (n / granularity_ + 1) * granularity_;')]),
dict(slug='old-range-freed-before-the-wait',
 shows="other arguments only (TAKEN 1, a move), a race and the record: the old mapping is unmapped while the caller's fill on its own stream may still write it: the fill faults (an illegal address: 'a kernel failed') or its ones are lost ('old data kept: 0') when it had not ended; right when it had (the usual case on an idle GPU); the default run grows in place and never waits",
 mistake="move unmaps the old chunks and frees the old ranges first and waits with cuCtxSynchronize only after, 'the new mapping is ready, so the old one can go at once'",
 why="work queued before the grow (the caller's fill on a stream of its own) may still use the old addresses; the wait must come before they are unmapped",
 source="own (the lesson: a move must wait for every stream that may still use the old addresses); kvcache-ai/Mooncake#4108 (VMM teardown order)",
 edits=[('''        // Work on any stream (the caller's own included) may still use the
        // old addresses: wait for all of the context's work.
        CU(cuCtxSynchronize());
        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        for (const auto& r : ranges_) CU(cuMemAddressFree(r.first, r.second));''','''        off = 0;
        for (const Chunk& c : chunks_) {
            CU(cuMemUnmap(base_ + off, c.bytes));
            off += c.bytes;
        }
        for (const auto& r : ranges_) CU(cuMemAddressFree(r.first, r.second));
        // The new addresses hold the data: wait for the work queued so far.
        CU(cuCtxSynchronize());''')]),
dict(slug='release-frees-the-ranges-before-unmapping',
 shows="default output at the end: data right, then 'release: failed' (the driver refuses to free addresses that are still mapped) and 'every reservation given back: no' (the ranges stay reserved; the unmaps after them succeed)",
 mistake="release frees every range first and only then unmaps the chunks and releases the handles, 'the addresses were taken first, so they go first'",
 why="cuMemAddressFree wants a range with nothing mapped in it: unmap, release, then free the addresses",
 source="kvcache-ai/Mooncake#4108 (the teardown order cuMemUnmap, cuMemRelease, cuMemAddressFree)",
 edits=[('''        bool ok = true;
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            ok = cuMemUnmap(base_ + off, c.bytes) == CUDA_SUCCESS && ok;
            off += c.bytes;
        }
        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
        chunks_.clear();
        if (ranges_.empty() && base_ != 0) ranges_.push_back({base_, reserved_});
        for (const auto& r : ranges_) ok = cuMemAddressFree(r.first, r.second) == CUDA_SUCCESS && ok;
        ranges_.clear();''','''        bool ok = true;
        if (ranges_.empty() && base_ != 0) ranges_.push_back({base_, reserved_});
        for (const auto& r : ranges_) ok = cuMemAddressFree(r.first, r.second) == CUDA_SUCCESS && ok;
        ranges_.clear();
        size_t off = 0;
        for (const Chunk& c : chunks_) {
            ok = cuMemUnmap(base_ + off, c.bytes) == CUDA_SUCCESS && ok;
            off += c.bytes;
        }
        for (const Chunk& c : chunks_) ok = cuMemRelease(c.handle) == CUDA_SUCCESS && ok;
        chunks_.clear();''')]),
dict(slug='misplaced-extension-kept-reserved',
 shows="other arguments only (TAKEN 1, when the driver places the extension elsewhere instead of refusing it) and the record: that range is never freed (a reservation leak); the move that follows is right and the data too; the default run (granted in place) right",
 mistake="extend returns false when the driver's address is not the one asked for, without freeing the range it got, 'it was not ours to keep'",
 why="a range the driver placed elsewhere is still reserved for the process; every range reserved must be given back",
 source="decaf-emu/decaf-emu#424 (a reservation placed elsewhere than asked must be freed where it was placed), own",
 edits=[('''        if (got != at) {
            cuMemAddressFree(got, extra);
            return false;
        }''','''        if (got != at) return false;''')]),
]
