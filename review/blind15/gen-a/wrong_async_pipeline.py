# Edits that make async-pipeline's wrong files from correct.cu (mkwrong.py).
WRONG = [
dict(slug='sums-copied-back-with-cudaMemcpy',
 shows="default output, the record and time: cudaMemcpy runs on the legacy default stream, which the non-blocking streams do not join, so the sums are copied before checksum has written them ('0 of 12 checksums right', or a few right by chance when the block held an earlier iteration's sums); and the host waits in submit at every iteration",
 mistake="submit brings the partial sums back with cudaMemcpy, 'a small copy, simplest synchronous', while everything else of the iteration is on its stream",
 why="a copy that takes no stream is ordered on the legacy default stream only; non-blocking streams never wait for it nor it for them, and it makes the host wait inside submit, which the file forbids",
 source="OpenPPL/ppl.cv#135 and alpaka-group/alpaka#850 (cudaMemcpy not ordered with non-blocking streams: wrong results by timing)",
 edits=[('''    cudaMemcpyAsync(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost, s);''','''    cudaMemcpy(sums_ + (size_t)it * BLOCKS, partial, BLOCKS * sizeof(long long), cudaMemcpyDeviceToHost);''')]),
dict(slug='copy-in-counted-in-floats',
 shows="default output: only the first quarter of each slice reaches the device (n bytes of 4 n); scale reads whatever the fresh block held for the rest: '0 of 12 results right, 0 of 12 checksums right' (the power of 4 at each slice's end is never copied)",
 mistake="the copy in passes n, the slice's number of floats, as its size, where cudaMemcpyAsync takes bytes",
 why="cudaMemcpyAsync's count is in bytes; a count of elements copies a quarter of a float slice",
 source="own (a count of elements passed where the call takes bytes)",
 edits=[('cudaMemcpyAsync(slice, in_ + off, bytes, cudaMemcpyHostToDevice, s);','cudaMemcpyAsync(slice, in_ + off, n, cudaMemcpyHostToDevice, s);')]),
dict(slug='sums-sized-as-floats',
 shows="the record (an out-of-bounds write and read every iteration) and results by chance: the block ends 256 bytes into the 512 the long long sums need; checksum writes past it and the copy reads past it, into whatever the pool placed there (often nothing: the pool rounds up, and the output is right)",
 mistake="the iteration's block is sized for the scaled values and BLOCKS * sizeof(float) of partial sums, 'the values are floats', though the partial sums are long longs",
 why="checksum writes BLOCKS long longs (8 bytes each) from the sums' offset; the block has room for half of them",
 source="own (a size computed from the wrong element type)",
 edits=[('cudaMallocAsync(&result, sumsAt + BLOCKS * sizeof(long long), s)','cudaMallocAsync(&result, sumsAt + BLOCKS * sizeof(float), s)')]),
dict(slug='slice-freed-before-scale',
 shows="the record (a use after free in the stream's own order every iteration) and results by chance: once the free has run, the pool may give the slice's block to another stream's iteration, whose copy in overwrites it while scale still reads it (wrong results for some iterations on some runs)",
 mistake="the slice is freed right after the copy in is queued, 'the copy is done with it', before the kernel that reads it",
 why="cudaFreeAsync frees at its place in the stream's order: a kernel queued after it reads freed memory; the slice's last reader is scale",
 source="own (the hint: an invalid read means a free queued before the last work that reads it)",
 edits=[('''    cudaMemcpyAsync(slice, in_ + off, bytes, cudaMemcpyHostToDevice, s);
    scale<<<BLOCKS, THREADS, 0, s>>>(slice, scaled, n, 2.0f);
    cudaFreeAsync(slice, s);   // scale was its last reader''','''    cudaMemcpyAsync(slice, in_ + off, bytes, cudaMemcpyHostToDevice, s);
    cudaFreeAsync(slice, s);   // the copy in is done with it
    scale<<<BLOCKS, THREADS, 0, s>>>(slice, scaled, n, 2.0f);''')]),
]
