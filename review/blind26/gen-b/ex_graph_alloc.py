ID = "graph-alloc"
EXT = "cu"
STUDENT = "exercises/day074/graph_alloc.cu"
DESIGN = ("step captured in GLOBAL mode with BOTH scratch allocations first (a on s, then b on s2, right after s2's wait on fork) "
          "and then each branch written whole (scale, sum, free on the stream that allocated it: s's branch, then s2's), join recorded "
          "on s2 and waited for by s, instantiated with cudaGraphInstantiateWithFlags(0); the sums on a grid a quarter of the scale's; "
          "produce captured in global mode, instantiated with the auto-free flag; its kernel node found as the kernel node whose "
          "DEPENDENCIES (the file's deps() helper) include a memory-allocation node; the launch loop goes PRODUCE FIRST at every k "
          "(factor set on the executable by cudaGraphExecKernelNodeSetParams at EVERY launch, the first included, through one argument "
          "array whose factor slot changes; produce launched on s; its sum on s; then step launched on s); TODO 4 gives the last out "
          "back with a plain cudaFree (a graph allocation may be freed so; the call waits for the device, the busy kernel included), "
          "then destroys both executables and trims: no stream wait of its own")
WRONGS = [
    dict(slug="out-summed-on-s2",
         shows="the program's own output: the sums of out run on s2, which waits for nothing: before the nap's 50 ms end, before any produce launch has run and before totals is zeroed (a wrong produce total, or an illegal address if out is not yet mapped); the record: reads of out not ordered after its allocation and write",
         mistake="each launch's sum of out is queued on s2 ('step's second stream is idle between launches')",
         why="out is written by the produce launch on s and freed by the next one: a kernel that reads it must be in s's order; s2 is not part of any capture at that point and never waits for s, so its sums run at once, ahead of the nap, the memset of totals and every launch",
         source="own",
         edits=[("            sum<<<sum_blocks, 256, 0, s>>>(out, n, &totals[1]);\n", "            sum<<<sum_blocks, 256, 0, s2>>>(out, n, &totals[1]);\n")]),
    dict(slug="last-out-given-back-with-cudafreeasync-before-the-trim",
         shows="the program's own output: 'after the trim: graph memory reserved 16 MiB (or more), used 16 MiB' where 0 and 0 are wanted (the free is still queued behind busy when the trim runs); the record: the trim not ordered after the free",
         mistake="TODO 4 frees the last out with cudaFreeAsync on s instead of cudaFree, 'to keep the host from waiting', and trims right after destroying the executables",
         why="cudaFreeAsync only queues the free behind the busy kernel (tens of milliseconds); the trim gives back only memory no graph allocation holds at that moment, so it finds out still allocated; nothing in TODO 4 waits any more",
         source="related: luminal-ai/luminal#472 (a graph memory trim that gives back only what is already free: the stream synchronized before the trim)",
         edits=[("    CHECK(cudaFree(out));\n", "    CHECK(cudaFreeAsync(out, s));\n")]),
    dict(slug="factor-slot-written-after-the-node-update",
         shows="the program's own output: every launch of produce scales by the factor of the launch before (1, 1, 2, 3, ...): 'produce total' short of the expected n x L(L + 1)/2 by n x (L - 1) for L launches (with one launch, right); step's total and the graph lines right",
         mistake="in the launch loop the argument slot is written (factor = k) right AFTER cudaGraphExecKernelNodeSetParams instead of before it, 'the node holds a pointer to my factor, the launch will read it'",
         why="cudaGraphExecKernelNodeSetParams copies the kernel's arguments out of the array at the call: what the slot holds then is what the next launch uses; a write after the call changes only what the following update copies",
         source="own",
         edits=[("            factor = k;   // read by the call below, which copies the arguments\n            CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));\n",
                 "            CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));\n            factor = k;   // read by the call below, which copies the arguments\n")]),
    dict(slug="produce-executable-left-alive",
         shows="the record only: a leak (produce's executable graph never destroyed); every printed line right, the trim included (a trim keeps only memory a graph allocation holds, and cudaFree gave out back)",
         mistake="TODO 4 destroys step's executable but not produce's ('produce's memory is already given back by cudaFree')",
         why="the executable graphs are objects of their own, apart from the memory their launches allocate: each instantiation must be undone with cudaGraphExecDestroy, and the harness destroys only the two graphs it captured from",
         source="own",
         edits=[("    CHECK(cudaGraphExecDestroy(produce));\n", "")]),
]
