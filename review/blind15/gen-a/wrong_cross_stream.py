# Edits that make cross-stream's wrong files from correct.cu (mkwrong.py).
WRONG = [
dict(slug='values-freed-on-copy-before-its-wait',
 shows="race and the record: the values' free on copy_ is queued before copy_'s wait for summed, so it follows only copy_'s earlier work (the previous chunk's copy), not the two squares: an unordered free every run; the next chunk's generate (same size) may get the block while a half still reads it (wrong sums on some runs)",
 mistake="stage_copy frees the values first, then waits for summed and copies, 'the values are not copy's business, so free them before its wait'",
 why="a stream-ordered free happens at its place in its stream; queued before the wait, nothing orders it after the readers on the work streams",
 source="own (the hint: the waiting stream must wait for a record made after the work it needs, before it frees)",
 edits=[('''    CHECK(cudaStreamWaitEvent(copy_, summed_, 0));
    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partial, copy_));
    // copy_ follows reduce_, which followed both halves' squares: both
    // reads of the values are in copy_'s order now.
    CHECK(cudaFreeAsync(ch.values, copy_));''','''    // The values first: copy_ does not read them.
    CHECK(cudaFreeAsync(ch.values, copy_));
    CHECK(cudaStreamWaitEvent(copy_, summed_, 0));
    CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));
    CHECK(cudaFreeAsync(ch.partial, copy_));''')]),
dict(slug='reduce-waits-for-half-0-twice',
 shows="race and the record: reduce_ is never ordered after work_[1]: half 1's squares may be summed before they are written and freed while written (wrong half-1 sums on some runs), and the values' free on copy_ is not ordered after half 1's read; unordered use and free every run",
 mistake="stage_reduce's wait loop names squared_[0] for every half (the index left at 0), so it waits twice for half 0",
 why="each work stream's square needs its own wait; a second wait for the same event orders nothing new",
 source="torch/cutorch#222 (a wait that follows only one of the streams it must follow)",
 edits=[('for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[h], 0));','for (int h = 0; h < HALVES; h++) CHECK(cudaStreamWaitEvent(reduce_, squared_[0], 0));')]),
dict(slug='partials-copied-for-one-half',
 shows="default output: half 1's partial sums never reach the host, which keeps its zeros: every chunk 'sums of squares X + 0', '0 of 8 chunks right'",
 mistake="stage_copy copies BLOCKS floats, the size the sum kernel's comment gives ('partial holds BLOCKS floats'), though both halves' sums are in the buffer",
 why="the buffer holds HALVES * BLOCKS floats, half 1's from BLOCKS on; the copy must bring both",
 source="own (a size taken from one kernel's comment)",
 edits=[('CHECK(cudaMemcpyAsync(ch.result, ch.partial, HALVES * BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));','CHECK(cudaMemcpyAsync(ch.result, ch.partial, BLOCKS * sizeof(float), cudaMemcpyDeviceToHost, copy_));')]),
dict(slug='squares-freed-on-their-work-stream',
 shows="race and the record: each half's squares go back on its work stream right after the square, before reduce_ sums them: an unordered free (and a use after free) every run; the next chunk's square of the same half takes the same block and may overwrite it before the sum reads it (wrong sums on some runs)",
 mistake="stage_work frees its squares on its own stream after recording squared, 'a stage frees what it allocated', and stage_reduce frees nothing",
 why="the squares' reader is reduce_; a free on the work stream is ordered after the writer only, not after the sum on another stream",
 source="own (the lesson: a buffer is freed once nothing can still read it, on a stream whose order holds its reads)",
 edits=[('''    CHECK(cudaEventRecord(squared_[half], s));
    return 0;''','''    CHECK(cudaEventRecord(squared_[half], s));
    CHECK(cudaFreeAsync(ch.squared[half], s));
    return 0;'''),
 ('''    for (int h = 0; h < HALVES; h++) CHECK(cudaFreeAsync(ch.squared[h], reduce_));
''','')]),
]
