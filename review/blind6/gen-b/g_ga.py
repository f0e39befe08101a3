import os, sys; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mk import *
src=open('exercises/day074/graph_alloc.cu').read()
src=rep(src,'''    // TODO 1: capture step from s, forked onto s2 with the events fork and
    // join: on each branch allocate a scratch buffer of `bytes`, scale `in`
    // into it (by 2 on s, by 3 on s2), sum it into totals[0] and free it;
    // then instantiate step. The two branches must not depend on each other.
''','''    // step: each branch allocates, uses and frees its scratch on its own
    // stream, so each free node follows only its own branch's kernels.
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMallocAsync((void**)&a, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, a, n, 2);
    sum<<<264, 256, 0, s>>>(a, n, totals);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaMallocAsync((void**)&b, bytes, s2));
    scale<<<blocks, 256, 0, s2>>>(in, b, n, 3);
    sum<<<264, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    CHECK(cudaStreamEndCapture(s, &step_graph));
    CHECK(cudaGraphInstantiateWithFlags(&step, step_graph, 0));
''')
src=rep(src,'''    // TODO 2: capture produce from s: allocate `out` (`bytes`) and scale
    // `in` into it by 1, without freeing it; instantiate it so that each
    // launch frees what the launch before allocated (or free `out` on s
    // yourself after each sum, in TODO 3). Then find produce's kernel node
    // in produce_graph: keep it in scale_node, its parameters in scale_params.
''','''    // produce: `out` outlives each launch; this program frees it itself on
    // s after each sum (TODO 3), so the graph is instantiated without
    // auto-free: a launch finds the last one's `out` already freed.
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaMallocAsync((void**)&out, bytes, s));
    scale<<<blocks, 256, 0, s>>>(in, out, n, 1);
    CHECK(cudaStreamEndCapture(s, &produce_graph));
    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, 0));
    {
        size_t count = 0;
        CHECK(cudaGraphGetNodes(produce_graph, nullptr, &count));
        std::vector<cudaGraphNode_t> nodes(count);
        if (count) CHECK(cudaGraphGetNodes(produce_graph, nodes.data(), &count));
        for (cudaGraphNode_t node : nodes) {
            cudaGraphNodeType t;
            CHECK(cudaGraphNodeGetType(node, &t));
            if (t == cudaGraphNodeTypeKernel) scale_node = node;
        }
        if (scale_node == nullptr) { fprintf(stderr, "produce has no kernel node\\n"); return 1; }
        CHECK(cudaGraphKernelNodeGetParams(scale_node, &scale_params));
    }
''')
src=rep(src,'''    // TODO 3: launch each graph `launches` times on s, without instantiating
    // again: produce's k-th launch (from 1) scales `in` by k (change its
    // kernel's factor in the instantiated graph); after each launch of
    // produce, sum `out` into totals[1] on s (the sum kernel above).
''','''    int count = n, factor = 1;   // what the updated kernel node reads
    void* args[4] = {(void*)&in, (void*)&out, (void*)&count, (void*)&factor};
    for (int k = 1; k <= launches; k++) {
        CHECK(cudaGraphLaunch(step, s));
        factor = k;
        cudaKernelNodeParams p = scale_params;
        p.kernelParams = args;   // copied by the call: later launches only
        p.extra = nullptr;
        CHECK(cudaGraphExecKernelNodeSetParams(produce, scale_node, &p));
        CHECK(cudaGraphLaunch(produce, s));
        sum<<<264, 256, 0, s>>>(out, n, totals + 1);
        CHECK(cudaFreeAsync(out, s));   // before the next launch allocates it again
    }
''')
src=rep(src,'''    // TODO 4: give the graphs' memory back to the driver: the last launch's
    // `out` is still allocated, and the executable graphs still exist.
    // TODO: write this part
''','''    // The last `out` was freed on s after its sum; once s is done, the
    // executable graphs go and the graph memory is trimmed.
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(step));
    CHECK(cudaGraphExecDestroy(produce));
    CHECK(cudaDeviceGraphMemTrim(device));
''')
ex='graph-alloc'
write(ex,'correct.cu',['kind: correct',
 'mistake: none. The design: each branch of step frees its scratch on its own stream before the join; produce is instantiated',
 'WITHOUT auto-free and the program frees `out` on s after each sum (the exercise\'s other option), so nothing is left at the end;',
 'the factor is changed through a persistent argument array whose factor variable is set before each update.',
 'why it is wrong: -','source: -'],src)
# G1: auto-free, the last out freed on the idle second stream, only s synchronized before the trim
g1=rep(src,'''    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, 0));''','''    CHECK(cudaGraphInstantiateWithFlags(&produce, produce_graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));''')
g1=rep(g1,'''    // produce: `out` outlives each launch; this program frees it itself on
    // s after each sum (TODO 3), so the graph is instantiated without
    // auto-free: a launch finds the last one's `out` already freed.''','''    // produce: `out` outlives each launch; each launch frees the last one's
    // (auto-free), the last one is freed in TODO 4.''')
g1=rep(g1,'''        sum<<<264, 256, 0, s>>>(out, n, totals + 1);
        CHECK(cudaFreeAsync(out, s));   // before the next launch allocates it again''','''        sum<<<264, 256, 0, s>>>(out, n, totals + 1);''')
g1=rep(g1,'''    // The last `out` was freed on s after its sum; once s is done, the
    // executable graphs go and the graph memory is trimmed.
    CHECK(cudaStreamSynchronize(s));''','''    // The last `out`: s is busy, and its sum was waited for above, so the
    // free goes on s2, which has nothing queued and does it at once.
    CHECK(cudaFreeAsync(out, s2));
    CHECK(cudaStreamSynchronize(s));''')
write(ex,'wrong-last-out-freed-on-idle-s2.cu',['kind: wrong',
 'mistake: produce is auto-freed; in TODO 4 the last launch\'s `out` is freed with cudaFreeAsync on s2 ("idle, so it is done at',
 'once") while the program then synchronizes only s before destroying the graphs and trimming.',
 'why it is wrong: nothing orders the trim after the free: the host waits for s, not for s2, so the trim runs while the free may',
 'not have happened (a host step before a wait that covers the stream that did it). s2 is idle, so the free has nearly always',
 'happened and the figures print 0.',
 'source: supranational/sppark#81 (cudaFreeAsync queued on a stream the rest of the program does not wait on),',
 'NVIDIA-BioNeMo/nvMolKit#55'],g1)
# G2: trimmed the stream-ordered pool, not the graph memory
g2=rep(src,'''    CHECK(cudaDeviceGraphMemTrim(device));''','''    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    CHECK(cudaMemPoolTrimTo(pool, 0));   // graph allocations came from cudaMallocAsync''')
write(ex,'wrong-default-pool-trimmed.cu',['kind: wrong',
 'mistake: TODO 4 gives the memory back with cudaMemPoolTrimTo on the device\'s default pool, since the graphs allocated it with',
 'cudaMallocAsync, instead of cudaDeviceGraphMemTrim.',
 'why it is wrong: graph allocations live in the device\'s graph memory, a pool of its own that cudaMemPoolTrimTo does not touch:',
 'the reserve stays at its high mark ("after the trim: graph memory reserved" is not 0).',
 'source: luminal-ai/luminal#472 and #467 (two separate pools: the stream-ordered one and the graph one, each needs its own trim)'],g2)
# G3: the second branch's scratch freed on the capture stream before the join (warp#1418)
g3=rep(src,"""    sum<<<264, 256, 0, s2>>>(b, n, totals);
    CHECK(cudaFreeAsync(b, s2));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));""","""    sum<<<264, 256, 0, s2>>>(b, n, totals);
    // Both scratch buffers are given back by the capture's own stream.
    CHECK(cudaFreeAsync(b, s));
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));""")
write(ex,'wrong-substream-scratch-freed-on-the-origin.cu',['kind: wrong',
 'mistake: the second branch\'s scratch b is freed with cudaFreeAsync on s, the stream the capture began on, before s waits for',
 'the join: the free node hangs off s\'s branch, not after s2\'s kernels.',
 'why it is wrong: at each launch the free of b may run before s2\'s scale and sum of b (a use after free inside the graph; the',
 'harness prints "kernels not before their buffer\'s free" for it). The totals usually come out right: the graph\'s memory is not',
 'reused before the branch ends. (An earlier blind set has this kind under another name; this one is the public case.)',
 'source: NVIDIA/warp#1418 (a free on a forked substream captured with the origin stream\'s frontier: use-after-free at replay)'],g3)
