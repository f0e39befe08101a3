WRONG = [
dict(slug='range-end-taken-at-its-own-boundary',
 shows='default output: grow(100 MiB) maps 2 to 64 MiB, then, at the head range\'s exact end, asks for a chunk of 0 bytes, which cuMemCreate refuses: \'grow to 104857600 bytes failed\'',
 mistake='rangeEnd walks on to the next range only while off > end, so an offset exactly at a range\'s end is taken as inside that range',
 why='a range covers [start, end); an offset equal to its end is the first byte of the next range, and with it the piece mapped there comes out 0 bytes long; the first piece of a growth always ends there, so every growth into an extension fails',
 source='own',
 edits=[('        for (size_t i = 0; off >= end && i < extensions_.size(); i++) end += extensions_[i];',
         '        for (size_t i = 0; off > end && i < extensions_.size(); i++) end += extensions_[i];')]),
dict(slug='access-opened-at-the-buffers-start',
 shows='default output: the bytes mapped by grow(100 MiB) are opened at the buffer\'s first bytes instead of their own, so the bytes from 62 to 100 MiB are mapped without access: the fill of the new region faults, \'a kernel failed\'',
 mistake='grow opens each new piece with cuMemSetAccess(base_, piece, ...), the offset mapped_ left out, \'the access is for the buffer\'',
 why='a mapping can be used only after its own addresses are opened; opening the first piece bytes again (already open) leaves every later piece inaccessible',
 source='own',
 edits=[('            if (cuMemSetAccess(base_ + mapped_, piece, &access_, 1) != CUDA_SUCCESS) {',
         '            if (cuMemSetAccess(base_, piece, &access_, 1) != CUDA_SUCCESS) {')]),
dict(slug='release-frees-the-grown-range-as-one',
 shows='default output at the end: after an in-place growth the buffer lies in two reservations; cuMemAddressFree of both at once is refused (by my reading: the driver frees one reservation as it was made): \'release: failed\' and \'every reservation given back: no\' (the data lines right); after a move (TAKEN 1) everything right',
 mistake='release frees base_ with reserved_, \'the buffer is one range of reserved_ bytes\', instead of freeing the head range and every extension one by one',
 why='the driver frees only whole reservations as they were made; an extension reserved right after the first range is contiguous with it but is its own reservation',
 source='ROCm/ROCR-Runtime#285 (a teardown call spanning pieces that were set up separately is refused, so the address range is never freed)',
 edits=[('''            size_t at = headBytes();
            ok = cuMemAddressFree(base_, at) == CUDA_SUCCESS && ok;
            for (size_t e : extensions_) {
                ok = cuMemAddressFree(base_ + at, e) == CUDA_SUCCESS && ok;
                at += e;
            }''', '''            ok = cuMemAddressFree(base_, reserved_) == CUDA_SUCCESS && ok;''')]),
dict(slug='move-waits-for-the-null-stream-only',
 shows='other arguments only (TAKEN 1, a move), a race and the record: the old mappings are taken down while the caller\'s fill on its non-blocking stream may still write them: an illegal address on some runs (\'a kernel failed\', or old data lost), and the teardown of memory in use in the record',
 mistake='move synchronises the legacy null stream (cuStreamSynchronize(0)) before unmapping, \'the default stream waits for every stream\'',
 why='the legacy default stream is ordered only with blocking streams; the caller\'s stream is non-blocking, so nothing waits for its fill of the old addresses; the move must wait for all the device\'s work (cuCtxSynchronize)',
 source='OpenPPL/ppl.cv#135 (non-blocking streams are not synchronised by work or waits on the legacy default stream)',
 edits=[('        CU(cuCtxSynchronize());', '        CU(cuStreamSynchronize(0));')]),
]
