WRONG = [
 dict(slug='joined-block-kept-at-the-freed-address',
  shows="default output, phase 2: the last give-back joins the 4 MiB before it but the joined block is listed at the freed block's address with the joined size, so it runs 4 MiB past its chunk: the 16 MiB request gets it: 'blocks: ... 1 not inside one chunk' (or more), and later blocks overlap; sums wrong where two blocks share bytes",
  mistake='deallocate, joining the free block before p, adds that block\'s size but keeps the joined block\'s start at p, \'the block grows\'',
  why='joined with the block before it, the free block starts where that block starts; kept at p with the sum of both sizes, it covers bytes past its own end (the next block or past the chunk) and loses the bytes before p',
  source='own',
  edits=[("""                b = prev->first;
                size += prev->second.size;""", """                size += prev->second.size;""")]),
 dict(slug='size-index-not-updated-on-removal',
  shows="default output from phase 1's second round: the size index still lists blocks that were cut or joined away; allocate picks such an entry and looks up an address that is no longer a free block (undefined: a crash, or a block handed out twice: 'blocks: ... M overlapping a block in use' with M > 0, sums wrong)",
  mistake='remove_free erases the block from the address map only, \'the size index follows the map\', and leaves its entry in the stream\'s size list',
  why='the two indexes must change together: a stale size entry names a block that is handed out, cut or joined, and best fit then returns it',
  source='own',
  edits=[("""        auto& list = by_size_[it->second.owner];
        auto range = list.equal_range(it->second.size);
        for (auto i = range.first; i != range.second; ++i)
            if (i->second == it->first) {
                list.erase(i);
                break;
            }
        free_.erase(it);""", """        free_.erase(it);""")]),
 dict(slug='block-size-kept-as-asked',
  shows="default output, phase 1: the 4 MiB - 100 block goes back as 4 MiB - 100 bytes: it never joins its next neighbour (its end misses by 100 bytes) and no longer holds the next 4 MiB - 100 request (rounded to 4 MiB): by my trace stream 1's list fills with such blocks, requests take other streams' blocks and then new chunks: '1. 8 rounds side by side on 2 streams: N chunk(s) taken' with N > 1",
  mistake='allocate records the block handed out with the size the caller asked for (bytes), not the size cut for it (n, rounded up to 256)',
  why='the block covers n bytes: given back with the unrounded size, its last bytes are lost for good, its end no longer meets its neighbour, and a later request of the same size, rounded, no longer fits it',
  source='own',
  edits=[("        out_[p] = {n, whole.chunk};", "        out_[p] = {bytes, whole.chunk};")]),
 dict(slug='exact-fit-passed-over',
  shows="default output, phase 2: an exact 4 MiB block of the asker's own is passed over (one of the four takes a new chunk), and the joined 16 MiB blocks do not serve the 16 MiB request: by my trace the four counts read 1, 3, 3 and 4 chunk(s) taken where 1, 1, 2 and 3 are wanted ('2. four 4 MiB blocks given back out of order, then 16 MiB: 3 chunk(s) taken')",
  mistake='allocate looks up its own list with upper_bound(n), \'the first block bigger than the request\', instead of lower_bound(n) (the first at least as big)',
  why='a free block of exactly the request\'s size fits it; upper_bound skips every block of that size, so exact fits are never taken from the asker\'s own blocks and the pool grows instead',
  source='own',
  edits=[('            auto it = mine->second.lower_bound(n);', '            auto it = mine->second.upper_bound(n);')]),
]
