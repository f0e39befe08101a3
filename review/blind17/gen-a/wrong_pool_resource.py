WRONG = [
 dict(slug='neighbours-of-two-streams-joined',
  shows="the record on every run, sums by chance: in phase 1 stream 1's free joins stream 0's free neighbours into one block listed as stream 1's; the next round stream 1 takes its first 4 MiB, the bytes stream 0's kernels used a moment ago, with no wait: an unordered use every round after the first; sums wrong on runs where the kernels overlap; chunk counts right",
  mistake='deallocate joins the freed block with any free neighbour of the same chunk, whatever stream it was freed on, and lists the joined block as the freeing stream\'s',
  why='a neighbour freed on another stream is free only in that stream\'s order; joined and listed under the freeing stream, its bytes are handed to that stream later with no wait for the other stream\'s work',
  source='rapidsai/rmm#2489 (a pool that moved blocks between streams\' free lists and lost the dependency on the donor stream\'s work in flight)',
  edits=[('if (next != free_.end() && next->first == b + size && next->second.owner == s && next->second.chunk == chunk) {',
          'if (next != free_.end() && next->first == b + size && next->second.chunk == chunk) {'),
         ('if (prev->first + prev->second.size == b && prev->second.owner == s && prev->second.chunk == chunk) {',
          'if (prev->first + prev->second.size == b && prev->second.chunk == chunk) {')]),
 dict(slug='own-blocks-not-preferred',
  shows="the record only (waits): the output, chunk counts and sums right; from phase 1's second round on a stream takes another stream's block (behind a wait) where one of its own, as good, was free: stream waits where none was needed, and a stream's work held behind the other's",
  mistake='allocate takes the best fit among every stream\'s free blocks at once (waiting when the block is another stream\'s), \'the best fit is the best fit\', without looking at the asker\'s own blocks first',
  why='the file asks for the best fit among the blocks the stream freed itself first: those need no wait; taking another stream\'s equal block instead ties the two streams together for nothing',
  source='own',
  edits=[('''        auto mine = by_size_.find(s);
        if (mine != by_size_.end()) {
            auto it = mine->second.lower_bound(n);
            if (it != mine->second.end()) p = it->second;
        }
''', ''), ('                if (list.first == s) continue;\n', ''),
         ('            if (p != nullptr) CHECK(cudaStreamWaitEvent(s, event_of(owner), 0));',
          '            if (p != nullptr && owner != s) CHECK(cudaStreamWaitEvent(s, event_of(owner), 0));')]),
 dict(slug='chunks-given-back-at-the-usual-size',
  shows="default output at the end: the 20 MiB chunk of phase 4 is given back as 16 MiB, which the upstream does not know: 'upstream: 3 chunks taken, 2 given back whole, 1 other deallocations' (3 and 0 wanted)",
  mistake='the destructor gives every chunk back with chunk_ bytes, \'a chunk is chunk bytes\', where a chunk made for a larger request is that request\'s size',
  why='a chunk goes back to the upstream whole, at the size it was asked for: a chunk of max(chunk, request) is larger than chunk_ when a request was, and the upstream matches address and size',
  source='own',
  edits=[('for (const auto& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.first, c.second);',
          'for (const auto& c : chunks_) upstream_.deallocate(mr::stream_ref{cudaStream_t{}}, c.first, chunk_);')]),
 dict(slug='exact-fit-passed-over',
  shows="default output, phase 2: an exact 4 MiB block of the asker's own is passed over (one of the four takes a new chunk), and the joined 16 MiB blocks do not serve the 16 MiB request: by my trace the four counts read 1, 3, 3 and 4 chunk(s) taken where 1, 1, 2 and 3 are wanted ('2. four 4 MiB blocks given back out of order, then 16 MiB: 3 chunk(s) taken')",
  mistake='allocate looks up its own list with upper_bound(n), \'the first block bigger than the request\', instead of lower_bound(n) (the first at least as big)',
  why='a free block of exactly the request\'s size fits it; upper_bound skips every block of that size, so exact fits are never taken from the asker\'s own blocks and the pool grows instead',
  source='own',
  edits=[('            auto it = mine->second.lower_bound(n);', '            auto it = mine->second.upper_bound(n);')]),
]
