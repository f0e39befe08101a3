# around_hooks.cu in Python: the runtime's real cudaMalloc found in its
# file's dynamic symbol table and at its load address in /proc/self/maps
# (no dlsym, which the statistics library answers with its hook), called
# a hundred times unseen; one call through the hook makes the record what
# the honest program's is. A Python run's record was not compared with
# the witness's counts, so this passed everywhere.
# needs: witness
# want: the statistics record does not match what the kernel saw|/proc
import ctypes
import struct

NAMES = ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0")
for name in NAMES:
    try:
        rt = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        break
    except OSError:
        pass
path, base = None, None
for line in open("/proc/self/maps"):
    f = line.split()
    if len(f) == 6 and "libcudart" in f[5] and int(f[2], 16) == 0:
        path, base = f[5], int(f[0].split("-")[0], 16)
        break
data = open(path, "rb").read()
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
dynsym = next(s for s in sections if s[1] == 11)  # SHT_DYNSYM
strtab = sections[dynsym[6]]
real = None
for off in range(dynsym[4], dynsym[4] + dynsym[5], 24):
    st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, off)
    end = data.index(b"\0", strtab[4] + st_name)
    if data[strtab[4] + st_name:end] == b"cudaMalloc" and st_value:
        real = base + st_value
malloc = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t)(real)
p = ctypes.c_void_p()
for _ in range(100):
    malloc(ctypes.byref(p), 1 << 20)
if rt.cudaMalloc(ctypes.byref(p), 1 << 20) == 0:
    rt.cudaFree(p)
print("one allocation asked for")
