WRONG = [
 dict(slug='both-sums-written-to-half-0s-partials',
  shows="default output: both sums write partials[0..BLOCKS), half 1's after half 0's, and half 1's BLOCKS floats are never written: the host reads half 1's sum in half 0's place and whatever the fresh block held for half 1 (zeros or an earlier chunk's sums): '0 of 8 chunks right' (by chance right only where the two halves' sums are equal and the block held them)",
  mistake='stage_reduce gives every half\'s sum the partial sums\' start, ch.partials, the half\'s offset h * BLOCKS left out',
  why='the partial sums hold HALVES x BLOCKS floats, half 0\'s first: half h must write from h x BLOCKS on, or the second sum overwrites the first and its own share stays unwritten',
  source='own',
  edits=[('sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partials + h * BLOCKS);',
          'sum<<<BLOCKS, THREADS, 0, reduce_>>>(ch.squares[h], m, ch.partials);')]),
 dict(slug='partials-freed-before-their-copy',
  shows="the record every run (a use after free in copy_'s own order) and sums by chance: the free is queued on copy_ before the copy that reads the partial sums; the pool may hand the block to the next chunk's reduce (which allocates the same size) while the copy has not run",
  mistake='stage_copy queues cudaFreeAsync of the partial sums right after its wait and before the copy, \'the copy was asked for already, the block can go\'',
  why='a free in stream order comes after what is queued before it on that stream, not after what is queued later: freed before the copy, the block is free while the copy still has to read it',
  source='own',
  edits=[("""    CHECK(cudaMemcpyAsync(ch.result, ch.partials, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partials, copy_));
""", """    CHECK(cudaFreeAsync(ch.partials, copy_));
    CHECK(cudaMemcpyAsync(ch.result, ch.partials, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
""")]),
 dict(slug='both-halves-square-the-first-half',
  shows="default output: half 1 squares the first n / 2 values again; the remainder of n / 2 over the period of 5 differs between the halves, so every chunk's half-1 sum is off: '0 of 8 chunks right' (with MIB 5 the half is a whole number of periods of 5 values and both halves sum alike: right by chance)",
  mistake='stage_work passes ch.values to square for every half, the half\'s offset into the values left out',
  why='half h must square the values from h * n / 2 on; without the offset both halves read the first half, and the second half of the values is never squared',
  source='own',
  edits=[('square<<<BLOCKS, THREADS, 0, s>>>(ch.values + (size_t)half * m, ch.squares[half], m);',
          'square<<<BLOCKS, THREADS, 0, s>>>(ch.values, ch.squares[half], m);')]),
 dict(slug='values-freed-on-work-0-behind-a-stale-record',
  shows='a race and the record: when half 0 is queued, half 1 has not recorded its squared event for this chunk yet, so work_[0] waits for the previous chunk\'s half 1 (chunk 0: for nothing) and frees the values while half 1 may still read them: an unordered free every run, wrong half-1 sums when the next chunk\'s generate reuses the block first',
  mistake='stage_work frees the values on the first half\'s stream, after a wait for the other half\'s squared event, \'the first work stream frees, once both halves are done\'',
  why='a wait takes the record made before it is queued; main queues half 0 before half 1, so at half 0\'s stage the other half\'s event still holds the previous chunk\'s record, and the free is not ordered after this chunk\'s second read',
  source='own',
  edits=[('''    if (half == HALVES - 1) {
        for (int h = 0; h < HALVES - 1; h++) CHECK(cudaStreamWaitEvent(s, squared_[h], 0));''', '''    if (half == 0) {
        for (int h = 1; h < HALVES; h++) CHECK(cudaStreamWaitEvent(s, squared_[h], 0));''')]),
]
