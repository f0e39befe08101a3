WRONG = [
 dict(slug='handle-released-right-after-its-map',
  shows="default output: the first move (grow(100 MiB) past the 64 MiB reservation) maps the first chunk again by a handle already released: cuMemMap refuses it and the move is undone: 'grow to 104857600 bytes failed'; and release() releases each handle a second time",
  mistake='grow releases the new chunk\'s handle as soon as it is mapped and opened, \'the mapping keeps the memory alive\', and still keeps the handle in chunks_',
  why='after cuMemRelease the handle is gone (the memory lives only as long as its mapping): a move needs the handle to map the same memory at the new addresses, and release() must release each handle once',
  source='NVIDIA/nccl#1795 (a handle released while its mapping is still there, which the driver allows: the memory then lives only as long as that one mapping)',
  edits=[('''        chunks_.push_back({h, add});
        mapped_ = want;''', '''        cuMemRelease(h);
        chunks_.push_back({h, add});
        mapped_ = want;''')]),
 dict(slug='moved-chunks-left-without-access',
  shows="default output: after the move the old data's addresses in the new range are mapped but not opened: 'fill<<<1, 1>>>(buf.data(), 1, 1)' touches them: an illegal address, 'a kernel failed' (the new chunk, opened, is right)",
  mistake='move maps every old chunk into the new range but sets no access there, \'the chunk was already opened when it was made\'',
  why='access rights belong to an address range, not to the memory: a new mapping of the same handle at new addresses can be read or written only after cuMemSetAccess on those addresses',
  source='ai-dynamo/snapshot#78 (mappings rebuilt without the access rights set on them, which fault at the next access)',
  edits=[('''            if (cuMemSetAccess(nb + off, c.bytes, &access_, 1) != CUDA_SUCCESS) {
                cuMemUnmap(nb + off, c.bytes);
                break;
            }
            off += c.bytes;
            done++;''', '''            off += c.bytes;
            done++;''')]),
 dict(slug='old-chunks-unmapped-at-the-new-base',
  shows="default output: after the wait, move unmaps the chunk it has just mapped in the new range (nb + off) instead of the old one; freeing the old range, still mapped, is refused ('grow to 104857600 bytes failed'), or, where the driver lets it go, the buffer's first 2 MiB have no memory at the new addresses: the write of its first int is an illegal address, 'a kernel failed'",
  mistake='the loop that takes the old mappings down unmaps nb + off, the offset added to the new range\'s base, where base_ + off (the old range) is meant',
  why='the old mappings are at the old base: unmapping at the new base takes away the data\'s new addresses and leaves the old range mapped, which the driver will not free',
  source='own',
  edits=[('            CU(cuMemUnmap(base_ + off, c.bytes));', '            CU(cuMemUnmap(nb + off, c.bytes));')]),
 dict(slug='new-range-twice-the-old-without-the-request',
  shows="other arguments only: when a request is more than twice the reservation (e.g. 100 16 or 100 32, or a second growth such as 100 64 300, where 300 MiB > 2 x 128), the new range of 2 x reservation cannot hold it: the new chunk's cuMemMap runs past the range and is refused: 'grow to ... bytes failed'; the default run (100 MiB in 64, a 128 MiB range) is right",
  mistake='move is asked for 2 * reserved_ alone, \'doubling always leaves room\', the request left out of the size',
  why='doubling leaves room only when the request is at most twice the old reservation; the new range must hold at least the rounded request',
  source='own',
  edits=[('if (!move(std::max(want, 2 * reserved_))) return false;', 'if (!move(2 * reserved_)) return false;')]),
]
