# fork_close.cu in Python (Day 77's kind of run): the child of os.fork
# closes every descriptor above 2 (the record's channel among them) with
# os.closerange before its first CUDA call, and makes a hundred
# cudaMalloc through ctypes; the parent claims one. The library ends such
# a child at its first call (exit status 72), before the call.
# want: exit status 72|does not follow|forked called CUDA|the statistics record does not match what the kernel saw
import ctypes
import os


def runtime():
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"):
        try:
            return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            pass
    raise SystemExit(70)


rt = runtime()
p = ctypes.c_void_p()
pid = os.fork()
if pid == 0:
    os.closerange(3, 65536)
    for _ in range(100):
        rt.cudaMalloc(ctypes.byref(p), 1 << 20)
    os._exit(0)
_, status = os.waitpid(pid, 0)
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    raise SystemExit(72)
if rt.cudaMalloc(ctypes.byref(p), 1 << 20) == 0:
    rt.cudaFree(p)
print("one allocation asked for")
