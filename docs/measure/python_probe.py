# What the statistics library sees of CuPy and PyTorch (Day 77, docs/claims.md):
# PROBE=none|cupy-default|cupy-async|torch, and for torch each
# PYTORCH_CUDA_ALLOC_CONF. Judged by python_probe.toml, whose checks ask every
# statistic for an impossible value so that each prints what was counted.
import os, sys
mode = os.environ.get("PROBE", "none")
print("mode", mode, flush=True)
if mode == "none":
    print("no cuda")
elif mode.startswith("cupy"):
    import cupy as cp
    if mode == "cupy-async":
        pool = cp.cuda.MemoryAsyncPool()
        cp.cuda.set_allocator(pool.malloc)
    else:
        pool = cp.get_default_memory_pool()
    s1 = cp.cuda.Stream(non_blocking=True)
    s2 = cp.cuda.Stream(non_blocking=True)
    for i in range(8):
        with s1:
            a = cp.full(1 << 22, i + 1, dtype=cp.float32)
            ev = s1.record()
        s2.wait_event(ev)
        with s2:
            t = float(0)
            b = a * 2
            r = b.sum()
        del a, b
    cp.cuda.Device().synchronize()
    print("r", float(r))
    print("pool used", pool.used_bytes(), "total", pool.total_bytes())
    pool.free_all_blocks()
    print("after free_all_blocks used", pool.used_bytes(), "total", pool.total_bytes())
    if mode == "cupy-async":
        h = cp.cuda.runtime.deviceGetMemPool(0)
        print("mempool handle", h)
        try:
            thr = cp.cuda.runtime.memPoolGetAttribute(h, cp.cuda.runtime.cudaMemPoolAttrReleaseThreshold)
            print("threshold", thr)
        except Exception as e:
            print("attr err", e)
    del r
elif mode.startswith("torch"):
    import torch
    print("backend", torch.cuda.memory.get_allocator_backend() if hasattr(torch.cuda.memory, "get_allocator_backend") else "?")
    s1 = torch.cuda.Stream(); s2 = torch.cuda.Stream()
    for i in range(8):
        with torch.cuda.stream(s1):
            a = torch.full((1 << 22,), float(i + 1), device="cuda")
        s2.wait_stream(s1)
        with torch.cuda.stream(s2):
            r = (a * 2).sum()
        a.record_stream(s2)
        del a
    big = torch.empty(300 << 20, dtype=torch.uint8, device="cuda")
    big2 = torch.empty(100 << 20, dtype=torch.uint8, device="cuda")
    del big
    torch.cuda.synchronize()
    print("r", r.item())
    st = torch.cuda.memory_stats()
    for k in sorted(st):
        if k.endswith(".all.peak") or k.endswith(".all.current") or k.startswith("num_") or "segment" in k:
            if ".all." in k or k.startswith("num_"):
                print("stat", k, st[k])
    print("reserved", torch.cuda.memory_reserved(), "allocated", torch.cuda.memory_allocated())
    del big2, r
    torch.cuda.empty_cache()
    print("after empty_cache reserved", torch.cuda.memory_reserved(), "allocated", torch.cuda.memory_allocated())
print("done", flush=True)
