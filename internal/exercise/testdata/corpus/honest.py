# The honest program in Python, as a Python exercise runs (python3 with
# the statistics library preloaded): one cudaMalloc through the CUDA
# runtime's own library (which fails without a GPU, and is counted all
# the same), a normal exit.
import ctypes

rt = None
for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"):
    try:
        rt = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        break
    except OSError:
        pass
p = ctypes.c_void_p()
if rt.cudaMalloc(ctypes.byref(p), 1 << 20) == 0:
    rt.cudaFree(p)
print("one allocation asked for")
