# spawn_python.py by a raw system call: a forked child (which made no
# CUDA call) starts the second interpreter with syscall(SYS_execve), which
# no hook of the statistics library sees, so its record counts no
# program started, and the witness does not compare a Python run's
# record. Where the exec is refused, it stops with exit status 71.
# want: exit status 71
# in the sandbox: exit status 71
import ctypes
import os
import sys

WORK = b"""
import ctypes
for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"):
    try:
        rt = ctypes.CDLL(name)
        break
    except OSError:
        pass
p = ctypes.c_void_p()
for _ in range(100):
    rt.cudaMalloc(ctypes.byref(p), 1 << 20)
"""


def runtime():
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"):
        try:
            return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            pass
    return None


def strings(items):
    arr = (ctypes.c_char_p * (len(items) + 1))()
    arr[:-1] = items
    arr[-1] = None
    return arr


pid = os.fork()
if pid == 0:
    libc = ctypes.CDLL(None, use_errno=True)
    argv = strings([sys.executable.encode(), b"-c", WORK])
    envp = strings([b"PATH=/usr/bin:/bin"])
    libc.syscall(59, sys.executable.encode(), argv, envp)  # SYS_execve
    os._exit(71)
_, status = os.waitpid(pid, 0)
if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 71:
    sys.exit(71)
p = ctypes.c_void_p()
rt = runtime()
if rt.cudaMalloc(ctypes.byref(p), 1 << 20) == 0:
    rt.cudaFree(p)
print("one allocation asked for")
