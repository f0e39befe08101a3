# driver_table.cu in Python: the CUDA driver's cuMemAlloc_v2 found in its
# file's dynamic symbol table at its load address (/proc/self/maps; a
# look-up by ctypes goes through dlsym, which the statistics library
# answers with its hook), its dispatch trampoline read in memory
# (`jmp *slot(%rip)`), and the function the slot holds called a hundred
# times: past the library's hook and the witness's probe on the entry.
# needs: witness
# want: the statistics record does not match what the kernel saw|/proc
# forged when it prints: driver table calls 100
import ctypes
import re
import struct

for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"):
    try:
        rt = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        break
    except OSError:
        pass
p = ctypes.c_void_p()
if rt.cudaMalloc(ctypes.byref(p), 1 << 20) == 0:  # the one the record says
    rt.cudaFree(p)
try:
    ctypes.CDLL("libcuda.so.1")
except OSError:
    pass


def symbol(lib, want):
    path, base = None, None
    for line in open("/proc/self/maps"):
        f = line.split()
        if len(f) == 6 and lib in f[5] and int(f[2], 16) == 0:
            path, base = f[5], int(f[0].split("-")[0], 16)
            break
    if path is None:
        return None
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    dynsym = next(s for s in sections if s[1] == 11)  # SHT_DYNSYM
    strtab = sections[dynsym[6]]
    for off in range(dynsym[4], dynsym[4] + dynsym[5], 24):
        st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, off)
        end = data.index(b"\0", strtab[4] + st_name)
        if data[strtab[4] + st_name:end] == want and st_value:
            return base + st_value
    return None


def behind(entry):
    code = ctypes.string_at(entry, 40)
    # 0xcc for 0xff: the witness's uprobe on the jump itself.
    m = re.search(b"[\xff\xcc]\x25", code)
    if m is None or m.start() > 32:
        return None
    i = m.start()
    disp, = struct.unpack_from("<i", code, i + 2)
    return ctypes.c_void_p.from_address(entry + i + 6 + disp).value


calls = ok = 0
last = -1
entry = symbol("libcuda.so", b"cuMemAlloc_v2")
free_entry = symbol("libcuda.so", b"cuMemFree_v2")
work = behind(entry) if entry else None
free_work = behind(free_entry) if free_entry else None
if work:
    alloc = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t)(work)
    release = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64)(free_work) if free_work else None
    for _ in range(100):
        d = ctypes.c_uint64()
        last = alloc(ctypes.byref(d), 1 << 20)
        calls += 1
        if last == 0:
            ok += 1
            if release:
                release(d.value)
print(f"driver table calls {calls} succeeded {ok} (last answer {last})")
print("one allocation asked for")
