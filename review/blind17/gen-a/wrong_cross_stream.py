WRONG = [
 dict(slug='loaded-recorded-before-generate',
  shows='a race and the record, sums by chance: the work streams wait for a record made before generate was queued, so square may read the chunk\'s values before (or while) generate writes them: wrong sums on runs where a work stream gets ahead (likely, as generate spins first), an unordered use every run',
  mistake='stage_load records loaded_ right after the allocation and launches generate after it, \'the buffer is ready once it is allocated\'',
  why='an event stands for the work queued on its stream before the record: recorded before generate, it tells the work streams only that the block exists, not that its values are written',
  source='own',
  edits=[('''    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(loaded_, load_));
''', '''    CHECK(cudaEventRecord(loaded_, load_));
    generate<<<BLOCKS, THREADS, 0, load_>>>(ch.values, ch.n, ch.index);
    CHECK(cudaGetLastError());
''')]),
 dict(slug='copy-waits-for-the-last-square',
  shows='a race and the record: copy_ is ordered after half 1\'s square only, not after the sums: it copies the partial sums before (or while) sum writes them and frees them while sum may still write: wrong or zero sums on runs where copy_ gets ahead (likely, as sum spins first), an unordered use and free every run',
  mistake='stage_copy waits on squared_[HALVES - 1], \'the last event the chunk records\', instead of reduced_',
  why='the partial sums are written on reduce_ after its waits; an event of a work stream says nothing about reduce_\'s later work, so the copy and the free on copy_ are not ordered after sum',
  source='own',
  edits=[('CHECK(cudaStreamWaitEvent(copy_, reduced_, 0));', 'CHECK(cudaStreamWaitEvent(copy_, squared_[HALVES - 1], 0));')]),
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
