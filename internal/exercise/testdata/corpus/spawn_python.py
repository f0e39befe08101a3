# spawn_self.cu in Python: the script runs its work in a second
# interpreter (subprocess, its environment without LD_PRELOAD), where a
# hundred cudaMalloc go unseen, while its own record says what the
# honest program's does (one cudaMalloc, a normal exit). A Python run's
# started programs were not counted against it.
# want: started another program
import ctypes
import os
import subprocess
import sys

WORK = """
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


env = {k: v for k, v in os.environ.items() if not k.startswith(("LD_", "LESSONS_"))}
subprocess.run([sys.executable, "-c", WORK], env=env, check=False)
p = ctypes.c_void_p()
rt = runtime()
if rt.cudaMalloc(ctypes.byref(p), 1 << 20) == 0:
    rt.cudaFree(p)
print("one allocation asked for")
