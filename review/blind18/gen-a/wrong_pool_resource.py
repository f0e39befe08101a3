WRONG = [
dict(slug='cut-rest-retagged-to-the-asker',
 shows='other arguments only (a third stream, phases 5 and 7 of the hidden runs) and the record: a rest cut from another stream\'s block is listed as the asker\'s, and the next taker waits for the asker\'s event, whose last record may come before the asker\'s wait (or be none at all): an unordered use of the rest, sums by chance; the two-stream phases right by my trace',
 mistake='allocate lists the rest of a cut block under the asking stream, \'the asker owns the rest now\', where the rest is still free only in the order of the stream that freed the block',
 why='the asker\'s wait orders its own later work after the owner\'s free, but the asker\'s event is recorded again only at its next free; a third stream that takes the rest waiting on that event is not ordered after the owner\'s work on it',
 source='own',
 edits=[('            segs_.insert(std::next(best), Seg{best->base + n, best->bytes - n, best->chunk, true, best->stream});',
         '            segs_.insert(std::next(best), Seg{best->base + n, best->bytes - n, best->chunk, true, s});')]),
dict(slug='new-chunk-always-of-the-chunk-size',
 shows='default output, phase 4: the 20 MiB request gets a chunk of the usual size and the whole of it as its block, 4 MiB short: \'blocks: N handed out, 0 misaligned, 1 not inside one chunk\', and its kernels write 4 MiB past the chunk (into upstream memory no chunk holds on the default run, so the sums are likely right)',
 mistake='allocate asks its upstream for chunk bytes every time, \'chunks are of one size\', instead of max(chunk, the request) for a request larger than a chunk',
 why='a request larger than a chunk needs a chunk of its own size; cut from a smaller chunk the block runs past the chunk\'s end into memory the pool does not own',
 source='own',
 edits=[('            const size_t size = std::max(chunk_, n);', '            const size_t size = chunk_;')]),
dict(slug='next-neighbour-never-joined',
 shows='default output, phase 2: a block given back before its lower neighbour is never joined from the other side: the four 4 MiB blocks given back out of order do not make 16 MiB again, and the 16 MiB request takes a new chunk: by my trace \'2. ... 2 chunk(s) taken\' (the count is cumulative; 1 wanted), and \'upstream: 4 chunks taken\' at the end (3 wanted)',
 mistake='deallocate joins the block with the free block before it only, \'the free blocks grow upwards\', and never with a free block after it',
 why='blocks come back in any order; when the block after p is already free the two must become one, or the chunk stays cut in pieces that no large request can use',
 source='dmsc/emu2#122 (free blocks freed in a certain order are not coalesced, and a large request then fails)',
 edits=[('''        auto nx = std::next(it);
        if (nx != segs_.end() && joins(*it, *nx)) {
            it->bytes += nx->bytes;
            segs_.erase(nx);
        }
''', '')]),
dict(slug='other-streams-free-blocks-never-taken',
 shows='default output: whenever the asker has no free block of its own that fits, a new chunk is taken although another stream\'s free block would do: by my trace B\'s first request in phase 1 takes a chunk of its own (\'1. ... 2 chunk(s) taken\', 1 wanted), phase 3\'s 4 MiB one more (3 where 2 are wanted), and \'upstream: 4 chunks taken\' at the end (3 wanted); the sums right',
 mistake='allocate, finding no fitting block of the asker\'s own, goes straight to the upstream, \'another stream\'s free block is not safe to take\'',
 why='it is safe once the asker waits for the freeing stream\'s event, without the host waiting; the contract asks for the best fit among all free blocks (the asker\'s own first) before a new chunk',
 source='own',
 edits=[('''        if (best == segs_.end()) {
            best = bestFit(n, s, false);
            if (best != segs_.end()) CHECK(cudaStreamWaitEvent(s, event_of(best->stream), 0));
        }
''', '')]),
]
