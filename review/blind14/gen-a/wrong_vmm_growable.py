from mkwrong import make
E = "vmm-growable"
make(E, "correct.cu", "move-waits-for-the-legacy-default-stream",
 "a move waits with cudaStreamSynchronize(0) before it unmaps the old addresses, 'the default stream waits for every other stream'",
 "other arguments only (TAKEN 1, a move): the legacy default stream does not wait for non-blocking streams, so the caller's fill on its own stream is not waited for before the old mapping goes: the record shows an unmap with no wait for that stream; the data come out right when the fill has ended first (the usual case), 'old data kept: 0' or a fault when it has not; the default run grows in place and waits for nothing",
 "own (the lesson: a move must wait for every stream that may still use the old addresses); huggingface/blog#3372 (non-blocking streams are not ordered by the default stream)",
 [("        if (cudaDeviceSynchronize() != cudaSuccess) return false;\n", "        if (cudaStreamSynchronize(0) != cudaSuccess) return false;\n")])
make(E, "correct.cu", "mapped-size-kept-unrounded",
 "grow records the caller's size as what is mapped (mapped_ = bytes) once the rounded chunks are mapped, 'mapped() is what the caller asked for'",
 "default output: 'grow(1 MiB): 1048576 bytes mapped' where the granularity (2 MiB) is mapped; the next grow starts its chunk at 1 MiB, which is not a multiple of the granularity: cuMemCreate or cuMemMap refuses, 'grow to 104857600 bytes failed', exit 1",
 "own (the lesson's pitfall 'Sizes not rounded': every size and offset a multiple of the granularity)",
 [("        return map_new(want);\n    }", "        if (!map_new(want)) return false;\n        mapped_ = bytes;\n        return true;\n    }")])
make(E, "correct.cu", "moved-range-sized-for-the-old-contents",
 "a move reserves a new range of what is mapped now (move(mapped_)), 'the move carries the chunks there are', and leaves the new bytes to the in-place path",
 "other arguments only (TAKEN 1, a move): the new range holds only the old chunks; the new memory has no addresses left in it and map_new stops short: 'grow to 104857600 bytes failed' after a move that did happen (the moved range is freed by release); the default run grows in place and is right",
 "own",
 [("            if (want > reserved_ && !move(2 * want)) return false;", "            if (want > reserved_ && !move(mapped_)) return false;")])
make(E, "correct.cu", "access-opened-at-the-buffers-start",
 "map_new opens each new chunk with cuMemSetAccess(base_, c.bytes, ...), from the buffer's first byte, not from the chunk's own addresses",
 "default output: the first chunk (at offset 0) is opened right; the 100 MiB growth opens [base, base + 62 MiB) (refused where it cuts a mapping: 'grow to 104857600 bytes failed'), and the chunks at their own offsets stay closed: the fill of 2s faults, 'a kernel failed'",
 "own (the lesson's pitfall 'Mapped but not accessible': set access for each new mapping, on its range)",
 [("                CU(cuMemSetAccess(base_ + from, c.bytes, &access_, 1));", "                CU(cuMemSetAccess(base_, c.bytes, &access_, 1));")])
