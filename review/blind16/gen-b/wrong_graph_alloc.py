WRONG = [
("out-allocated-before-the-capture",
 "the program's own output: produce's line shows 0 allocation nodes (out is allocated once, before the graph, not once a launch); the totals are right",
 "out's cudaMallocAsync is queued on s just before cudaStreamBeginCapture, so the capture holds only the kernel",
 "an allocation made outside the capture is an ordinary pool allocation made once; the graph never allocates or frees it, so the exercise's graph allocation (and the auto-free at each launch) is not there at all",
 "own",
 [("        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));\n        CHECK(cudaMallocAsync((void**)&out, bytes, s));\n",
   "        CHECK(cudaMallocAsync((void**)&out, bytes, s));\n        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));\n")]),
("factor-set-once-by-pointer",
 "the program's own output: produce total is n times the launches (every launch scales by 1), short of n L (L+1) / 2 from two launches on",
 "the kernel's parameters are set in the executable once, before the loop, with a pointer to a factor variable; the loop then only changes that variable",
 "cudaGraphExecKernelNodeSetParams copies the argument values at the call; the graph keeps no pointer to the student's variable, so later changes to it reach no launch",
 "own",
 [('''    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        int factor = k;
        void* args[4] = {(void*)&in, (void*)&out, (void*)&n, (void*)&factor};
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;
        p.extra = nullptr;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));
''', '''    int factor = 1;
    void* args[4] = {(void*)&in, (void*)&out, (void*)&n, (void*)&factor};
    cudaKernelNodeParams p = scale_params;
    p.kernelParams = args;
    p.extra = nullptr;
    CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));   // the node now reads factor
    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        factor = k;
''')]),
("factor-set-after-the-launch",
 "the program's own output: each launch uses the factor meant for the launch before (1, 1, 2, ..., L-1): produce total falls short by n (L-1) from two launches on",
 "the loop launches produce and then sets the factor k in the executable, believing the new parameters apply to the launch just queued",
 "parameters set in an executable graph apply to launches made after the call; the launch already queued keeps the parameters it had, so every launch is one factor behind",
 "own",
 [('''        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));
        CHECK(cudaGraphLaunch(produce, s));
''', '''        CHECK(cudaGraphLaunch(produce, s));
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));
''')]),
("produce-sum-queued-on-the-branch-stream",
 "race: each sum of out runs on s2, ordered after neither produce's launch (before the nap it runs at once, reading out before it is allocated or scaled) nor before the next launch's auto-free; produce total wrong, the record: unordered uses and frees",
 "the sum of out after each launch of produce is queued on s2 (the student reuses the free second stream to overlap it)",
 "s2 is not part of any capture or wait outside step's graph: nothing orders its work after the graph launched on s, nor the next launch (which frees and reallocates out) after the sum",
 "own",
 [("        sum<<<blocks, 256, 0, s>>>(out, n, totals + 1);", "        sum<<<blocks, 256, 0, s2>>>(out, n, totals + 1);")]),
]
