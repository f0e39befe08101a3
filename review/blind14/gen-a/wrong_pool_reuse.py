from mkwrong import make
E = "pool-reuse"
make(E, "correct.cu", "phase-boundary-trims-to-nothing",
 "enter_phase trims the pool to 0 ('whatever it holds beyond that given back now' read as 'start the phase clean'), then sets the threshold to the peak",
 "default output: the wide phase's 128 MiB, which the narrow phase could have kept 32 MiB of, all go back at the boundary: the narrow phase's first round asks the driver again, 'narrow: 5 of 6 rounds found their 32 MiB already reserved' (6 of 6 wanted); 'entering narrow: reserved 0 MiB'",
 "own; Genesis-Embodied-AI/quadrants#669 (a trim to 0 at a reset where a warm pool was wanted), pytorch/executorch#22312 (keep the pool warm between phases)",
 [("    CHECK(cudaMemPoolTrimTo(pool, peak));\n    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));",
   "    CHECK(cudaMemPoolTrimTo(pool, 0));\n    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));")])
make(E, "correct.cu", "peak-taken-from-the-used-high-mark",
 "measure_peak takes the used high-water mark (the bytes the round's buffers asked for) as what one round reserves",
 "other arguments only: with the default 32 MiB buffers the pool reserves exactly what is used and every line is right; with sizes the pool rounds up (MIB 100: 400 MiB used, more reserved) the measured line, the threshold and the trim are the used figure: 'one round reserves 400 MiB' where the pool reserves more, and a threshold below what the rounds reserve",
 "own (the lesson: the used figures count what the host has not freed; the reserved ones what the pool took)",
 [("    const uint64_t before = attr(pool, cudaMemPoolAttrReservedMemCurrent);\n", "    const uint64_t before = attr(pool, cudaMemPoolAttrUsedMemCurrent);\n"),
  ("    const uint64_t high = attr(pool, cudaMemPoolAttrReservedMemHigh);\n    *peak", "    const uint64_t high = attr(pool, cudaMemPoolAttrUsedMemHigh);\n    *peak")])
make(E, "correct.cu", "held-reads-the-reserved-high-mark",
 "held compares the reserved high-water mark with the need, 'the most the pool has held this phase'",
 "other arguments only (TRIM inside a phase): the mark remembers the memory the trim gave back, so the round after the trim is counted as finding its memory: 'wide: 5 of 6' and 'narrow: 6 of 6' where 4 and 5 are right; the default run (marks restarted at each phase, nothing trimmed) right",
 "own (the lesson: a high-water mark counts since it was last reset, not what the pool holds now)",
 [("    return attr(pool, cudaMemPoolAttrReservedMemCurrent) >= need;", "    return attr(pool, cudaMemPoolAttrReservedMemHigh) >= need;")])
make(E, "correct.cu", "threshold-only-ever-raised",
 "enter_phase sets the release threshold only when the new peak is above the one set, so that a later phase never loses memory an earlier one may need again",
 "default output: the narrow phase keeps the wide phase's threshold: 'phase narrow: ... threshold 128 MiB' (32 wanted); the trim at the boundary still gives the rest back, so the narrow rounds' figures are right, but every later synchronisation may keep 128 MiB",
 "own; NVIDIA/cccl#11202 (a threshold set for one use, left for the rest)",
 [("    CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));\n    CHECK(restart(pool));\n    return 0;",
   "    if (peak > attr(pool, cudaMemPoolAttrReleaseThreshold)) CHECK(put(pool, cudaMemPoolAttrReleaseThreshold, peak));\n    CHECK(restart(pool));\n    return 0;")])
