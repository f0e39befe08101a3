ID = "stream-pools"
EXT = "cu"
STUDENT = "exercises/day087/stream_pools.cu"
DESIGN = ("the asking lanes as a cooperative-groups coalesced group; each lane's place from a SUFFIX sum over the group's ranks written "
          "by hand (log steps of g.shfl_down, its units and those of every asking lane above it), the run's length being RANK 0's suffix "
          "(one g.shfl from rank 0) and a lane's place the run less its own suffix; rank 0 (the lowest asking lane) moves the offset "
          "through a libcu++ cuda::atomic_ref (device scope) by compare_exchange_weak, which re-tests the fit against every value it "
          "sees and gives up with no store, raises the mark by atomicMax and adds the group's size to the refusals; the start (or all "
          "ones) from rank 0 by g.shfl; host side: the counters are NO ALLOCATION at all but a __device__ array of the program "
          "(g_counters[kStreams]), its device address from cudaGetSymbolAddress, each pool's entry cleared by cudaMemsetAsync on its "
          "own stream; the arena one cudaMalloc of n slices; reset a memset of the 8-byte offset on the given stream, used one "
          "cudaMemcpyAsync of the three counters there; destroy frees the arena only")
WRONGS = [
    dict(slug="counters-addressed-through-the-host-shadow-of-the-symbol",
         shows="the program's own output: init's first cudaMemsetAsync fails (an invalid argument: the address is the host's copy of the symbol, not device memory) and the program stops before any line",
         mistake="init takes the counters' address as g_counters itself, in host code, instead of asking cudaGetSymbolAddress for its device address",
         why="in host code the name of a __device__ variable is a host-side shadow used to look the symbol up; runtime calls that take a device pointer (cudaMemsetAsync, cudaMemcpyAsync, the kernels' DevicePool) need the address cudaGetSymbolAddress returns",
         source="related: bakks/virginian#1 (a device symbol's host-side name handed to a runtime call as if it were the device address)",
         edits=[("        CHECK(cudaGetSymbolAddress((void**)&counters_, g_counters));\n", "        counters_ = g_counters;\n")]),
    dict(slug="counters-cleared-on-the-next-pools-stream",
         shows="the record (a race): pool i's counters are cleared on stream i + 1 (pool 3's on stream 0), which nothing orders before pool i's first reset, kernel or copy; the printed lines right on nearly every run (the counters are static memory, zero already, and the clears run long before the first kernels)",
         mistake="init's loop queues pool i's clear on streams[(i + 1) % n], the index shifted by one ('each stream clears its neighbour's counters while its own are cleared by the one before')",
         why="a counter must start at 0 in its own pool's stream order: on another stream the clear may run after pool i's first round has started (zeroing its offset, mark or refusals mid-round) and is in any case not ordered before it",
         source="own",
         edits=[("            CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[i]));\n",
                 "            CHECK(cudaMemsetAsync(counters_ + i, 0, sizeof(PoolCounters), streams[(i + 1) % n]));\n")]),
    dict(slug="run-length-shuffled-from-the-last-rank",
         shows="the program's own output: the run is only the highest asking lane's size, so every lane below it gets a place before the run's start (the subtraction wraps): addresses far outside the pool and an illegal address in the first work round, or, where they land, overlapping blocks and pool use wrong",
         mistake="the run's length is shuffled from the LAST rank (g.size() - 1), as an inclusive prefix scan would have it, instead of from rank 0, whose suffix sum is the whole run",
         why="with a suffix scan the totals sit at rank 0: the last rank's suffix is its own size alone; the offset then moves by that much only and each lane's place, the run less its own suffix, goes below zero",
         source="own",
         edits=[("    const unsigned long long run = g.shfl(suffix, 0) * kAlign;\n",
                 "    const unsigned long long run = g.shfl(suffix, g.size() - 1) * kAlign;\n")]),
    dict(slug="used-waits-for-its-copy-on-the-host",
         shows="the record only: a host wait (cudaStreamSynchronize) at every used(), 36 in the default run; every printed line right, the streams overlapping less",
         mistake="used() synchronizes the stream after queuing the copy ('so that main reads a finished copy')",
         why="the copy is already in s's order and main waits for the device before it reads: the pool must never make the host wait, and each wait here holds the host back from queuing the other streams' rounds",
         source="related: pytorch/tensorpipe#383 (a stream synchronized right after an asynchronous copy that later work was already ordered behind)",
         edits=[("        CHECK(cudaMemcpyAsync(to, counters_ + i, sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));\n",
                 "        CHECK(cudaMemcpyAsync(to, counters_ + i, sizeof(PoolCounters), cudaMemcpyDeviceToHost, s));\n        CHECK(cudaStreamSynchronize(s));\n")]),
]
