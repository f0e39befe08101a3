WRONG = [
dict(slug='pending-scan-stops-at-the-first-busy-block',
 shows='default output, part 3b (and part 4 by timing): a block given back earlier whose kernel still runs hides every block given back after it, done or not: \'allocate with N of M blocks ... done\' hands out fewer than are done (0 where the oldest is held), and take() may give up after 2 s; the record right',
 mistake='allocate scans its class\'s list of given-back blocks from the oldest and stops at the first whose event is not done yet, \'blocks come back in the order they were given back\'',
 why='blocks are given back on several streams, and their work finishes in any order; a block whose work is done must be handed out even when an older give-back on another stream is still busy',
 source='own',
 edits=[('''            } else {
                j++;
            }''', '''            } else {
                break;
            }''')]),
dict(slug='second-give-back-refused-only-once-idle',
 shows='default output, part 2 and part 3: \'double free refused: no\' and \'double free while its kernel runs refused: no\'; the block is then listed twice as given back, and later handed out to two requests at once (words overwritten in part 4)',
 mistake='deallocate refuses a block only when its state is idle, \'a block that is not free yet may be given back\', instead of refusing every block that is not handed out',
 why='a block already given back is pending until its work is done and allocate finds it so; giving it back again must be refused, done or not, or it enters the list twice and two requests get the same bytes',
 source='pleriche/FastMM5#73 (a block already on the pending-free list freed again is accepted and listed twice)',
 edits=[('    if (i < 0 || blocks_[i].state != kOut) return false;', '    if (i < 0 || blocks_[i].state == kIdle) return false;')]),
dict(slug='stride-rounded-to-a-power-of-two',
 shows='the record only: the one cudaMalloc is 172032 bytes for the default classes where their sum of 256-aligned blocks is 114688 (no more is allowed); the blocks aligned, apart, the output right',
 mistake='roundUp rounds every class size up to the next power of two (at least kAlign), \'powers of two are always aligned\'',
 why='the contract sizes each block as its class\'s size rounded up to kAlign and the allocation as their sum, no more; 3000 becomes 4096 and 10000 becomes 16384, half again as much memory as the layout needs',
 source='own',
 edits=[('static size_t roundUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }',
         'static size_t roundUp(size_t n) {\n    size_t s = kAlign;\n    while (s < n) s <<= 1;\n    return s;\n}')]),
dict(slug='finished-events-never-destroyed',
 shows='the record only: every event made by a deallocate and found done by allocate is dropped without cudaEventDestroy (about one per request, over 200 on the default run); output right',
 mistake='allocate, once a block\'s event answers done, forgets the handle (done = nullptr) without destroying it, \'a completed event needs no cleanup\'',
 why='each deallocate creates an event; one that has completed still exists until cudaEventDestroy, so the pool leaks an event for every block that comes back, and destroy no longer sees them',
 source='tromp/cuckoo#69 (cudaEventCreate without cudaEventDestroy leaks)',
 edits=[('''                cudaEventDestroy(b.done);
                b.done = nullptr;''', '''                b.done = nullptr;''')]),
]
