WRONG = [
 dict(slug='stride-rounded-down-to-the-alignment',
  shows='default output, part 1: with the default classes the strides are 768, 2816 and 9984 bytes, each block shorter than its class: \'overlapping: yes\', and later words overwritten where a request fills its whole class size into the next block',
  mistake='roundUp divides by kAlign and multiplies back without adding kAlign - 1 first, so each class\'s stride is its size rounded down to a multiple of 256',
  why='a block must hold its class\'s size; rounded down, every class whose size is not a multiple of 256 gets blocks shorter than the class, which run into the next block (and the last one past the allocation)',
  source='own',
  edits=[('return (b + kAlign - 1) / kAlign * kAlign;', 'return b / kAlign * kAlign;')]),
 dict(slug='pointer-inside-a-block-accepted',
  shows="default output, part 2: 'pointer 256 bytes into a block refused: no'; the pointer is then taken for the block it lies in, which is given back while part 2 still holds it, and the later give-back of that block is refused: 'gave every block back: no'",
  mistake='index maps any address inside a class\'s region to the block it falls in (the division\'s remainder is never checked), taking \'inside the block\' for \'the block\'',
  why='deallocate must refuse a pointer that is not the start of a block; dividing without checking the remainder accepts every interior pointer and gives back a block its owner still uses',
  source='own',
  edits=[('        if ((off - lo) % stride_[c] != 0) return -1;\n', '')]),
 dict(slug='event-recorded-before-the-state-check',
  shows="default output and the record, part 3: the refused double free on the idle fourth stream re-records the block's event there, so the block looks done while its held kernel runs: 'allocate while every block of 1000 bytes is in use: a block', and the early request's kernel overwrites words the held one still checks",
  mistake='deallocate records the block\'s event on the given stream first and only then checks that the block was handed out, \'the record is harmless if we refuse anyway\'',
  why='a refused give-back must change nothing: the record replaces what the event tracked (the work before the real give-back on the kernel\'s stream) with an idle stream\'s empty queue, so cudaEventQuery says done at once and the block is handed out while its kernel still runs',
  source='NVIDIA/cub#156 (a cached block taken by another request because its event did not yet stand for the work queued before the free)',
  edits=[('''    if (i < 0 || block_[i].state != Out) return false;
    if (cudaEventRecord(block_[i].ready, stream) != cudaSuccess) return false;
''', '''    if (i < 0) return false;
    if (cudaEventRecord(block_[i].ready, stream) != cudaSuccess) return false;
    if (block_[i].state != Out) return false;
''')]),
 dict(slug='class-chosen-with-upper-bound',
  shows="default output, part 1: a request of exactly a class's size goes to the next class: allocate(1000) takes a 3000-byte block ('allocate(1000) with its class all handed out and larger ones free: a block'), each larger class runs one block short, and part 1 stops at an 'allocate(...) returned nullptr while ... were free' line (at the latest at allocate(10000), which no class takes)",
  mistake='allocate picks the class with std::upper_bound (the first class larger than the request) where std::lower_bound (the first class at least as large) is wanted',
  why='a class holds requests up to and including its size; upper_bound sends an exact-size request one class up (wasting a larger block, starving it) and refuses an exact request for the largest class',
  source='own',
  edits=[('const size_t c = std::lower_bound(bytes_.begin(), bytes_.end(), bytes) - bytes_.begin();',
          'const size_t c = std::upper_bound(bytes_.begin(), bytes_.end(), bytes) - bytes_.begin();')]),
]
