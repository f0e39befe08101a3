ID = "ipc-pool"
EXT = "cu"
STUDENT = "exercises/day073/ipc_pool.cu"
DESIGN = ("a RING of THREE pairs of interprocess events (six events, timing off), round r using pair r % 3, all six handles sent "
          "in one message after the pool's descriptor (given send_fd; the parent closes its copy once sent, the child once imported); "
          "the parent RUNS AHEAD of the child's answers by up to two rounds: each round it records filled[r % 3] behind the fill, sends "
          "the block's export data, keeps the block in a 3-slot table, and then takes answers while more than two rounds are unanswered "
          "(at the last round, all of them): for each answer (the round's low byte, checked) s waits on that round's freed and the "
          "round's block is freed on s; a pair is recorded again only after the answer of the round that last used it, so every wait "
          "binds to its own round's record; pair 0 is kept in filled and freed for the given teardown, the other two pairs are closed "
          "by the child in its last round before its last answer and destroyed by the parent once that answer is in; the child imports "
          "each block, waits on filled[r % 3] on s, reads, frees its import on s, records freed[r % 3] there and answers")
WRONGS = [
    dict(slug="answered-block-freed-behind-the-current-rounds-freed",
         shows="a race the default run most likely loses (default output: 'the block stayed the child's until it read it again' short of 5), and the record at every answer taken inside the loop: the parent's free not ordered after the child's read and its free of the import",
         mistake="taking the answer of round a (two rounds back), the parent queues its wait on freed[r % 3], the pair of the round it is in, instead of freed[a % 3]",
         why="freed[r % 3] was last recorded by the child three rounds before r (in rounds 0 to 2 never: a wait on an event never recorded is no wait at all), so the free of round a's block is ordered after older work only: the pool hands that block to the next round's allocation on s at once, and its fill overwrites it while the child's 30 ms second read of round a is still going",
         source="own",
         edits=[("            CHECK(cudaStreamWaitEvent(s, ring_freed[answered % kRing], 0));\n",
                 "            CHECK(cudaStreamWaitEvent(s, ring_freed[r % kRing], 0));\n")]),
    dict(slug="child-never-frees-its-imports",
         shows="the record only: every imported block is left allocated in the child, and the parent frees each block while the child's import of it is still live; every printed line right, most likely",
         mistake="the child records freed and answers after its read but never calls cudaFreeAsync on the imported pointer ('the block is the parent's, the parent frees it')",
         why="an imported pointer is an allocation of the importing process: it must be freed there (cudaFreeAsync on its stream) before the exporter frees the block, and freed is meant to tell the parent exactly that; without it the parent's free, though ordered after the read, comes while the import still exists",
         source="related: deepseek-ai/DeepEP#497 (an exporter freeing shared memory before the importer has closed its handle to it)",
         edits=[("        CHECK(cudaFreeAsync(block, s));\n        CHECK(cudaEventRecord(ring_freed[r % kRing], s));\n",
                 "        CHECK(cudaEventRecord(ring_freed[r % kRing], s));\n")]),
    dict(slug="last-two-answers-left-in-the-socket",
         shows="the program's own output: the parent reads the child's sums two bytes off (the two answers it never took come first), so every round's printed reads are garbage and the counts of rounds filled before the read and kept until the read again fall (most likely to 0); the record: the last two rounds' blocks never freed",
         mistake="the answer loop keeps only its run-ahead condition (answered <= r - 2) and drops the drain at the last round, 'the sums at the end say the child is done'",
         why="the ring lets the parent leave the last two rounds unanswered until the end, where it must take their answers and free their blocks; without the drain those two bytes stay in the socket ahead of the sums, and the two blocks are never freed (the pool is destroyed with allocations out)",
         source="own",
         edits=[("        while (answered <= r - (kRing - 1) || (r == rounds - 1 && answered < rounds)) {\n",
                 "        while (answered <= r - (kRing - 1)) {\n")]),
    dict(slug="child-keeps-the-rings-other-pairs-open",
         shows="the record only: the child never closes four of the six event handles it opened (the teardown closes pair 0 only); every printed line right",
         mistake="the child's last round does not close the ring's pairs past the first ('the teardown closes the events')",
         why="the given teardown closes filled and freed, which hold pair 0 only; each event the child opened with cudaIpcOpenEventHandle must be closed with cudaEventDestroy by the child, and before the parent, their maker, destroys them",
         source="own",
         edits=[("        if (r == rounds - 1)   // the ring's pairs past the first: closed before the last answer\n            for (int k = 1; k < kRing; k++) {\n                CHECK(cudaEventDestroy(ring_filled[k]));\n                CHECK(cudaEventDestroy(ring_freed[k]));\n            }\n        const unsigned char answer",
                 "        const unsigned char answer")]),
]
