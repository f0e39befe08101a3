# The same by multiprocessing with the spawn start method: the worker is
# a fresh interpreter started by exec, with no statistics record of its
# own, whatever its environment; the parent's record says what the
# honest program's does.
# want: started another program|timed out after
# (On a loaded machine the worker can be started before the library's
# exec hook sees it, by a vfork the library does not follow: the library
# ends that worker as a process it does not follow, and the Pool waits
# for its dead worker until the run's limit stops it: CI, session 18. The
# forger fails either way, having made none of its hundred calls.)
import ctypes
import multiprocessing as mp
import os


def runtime():
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"):
        try:
            return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            pass
    return None


def work(n):
    rt = runtime()
    p = ctypes.c_void_p()
    for _ in range(n):
        rt.cudaMalloc(ctypes.byref(p), 1 << 20)
    return n


if __name__ == "__main__":
    os.environ.pop("LD_PRELOAD", None)
    with mp.get_context("spawn").Pool(1) as pool:
        pool.map(work, [100])
    rt = runtime()
    p = ctypes.c_void_p()
    if rt.cudaMalloc(ctypes.byref(p), 1 << 20) == 0:
        rt.cudaFree(p)
    print("one allocation asked for")
