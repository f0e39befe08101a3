# wipe_on_fork.cu in Python (ctypes): MADV_WIPEONFORK on the statistics
# library's writable anonymous pages (found in /proc/self/maps), then
# os.fork; the child, its copy of the library's state zeroed, makes a
# hundred cudaMalloc through ctypes; the parent claims one.
# want: exit status 72|does not follow|forked called CUDA|the statistics record does not match what the kernel saw
# forged when it prints: child worked
import ctypes
import os

rt = None
for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"):
    try:
        rt = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        break
    except OSError:
        pass
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
after = False
with open("/proc/self/maps") as f:
    for line in f:
        parts = line.split()
        a, b = (int(x, 16) for x in parts[0].split("-"))
        lib = "liballocstats" in line
        anon = len(parts) < 6
        if (lib or (after and anon)) and parts[1].startswith("rw"):
            libc.madvise(a, b - a, 18)  # MADV_WIPEONFORK
        after = lib or (after and anon)
pid = os.fork()
if pid == 0:
    p = ctypes.c_void_p()
    for _ in range(100):
        rt.cudaMalloc(ctypes.byref(p), 1 << 20)
    print("child worked", flush=True)
    os._exit(0)
os.waitpid(pid, 0)
p = ctypes.c_void_p()
if rt.cudaMalloc(ctypes.byref(p), 1 << 20) == 0:
    rt.cudaFree(p)
print("one allocation asked for")
