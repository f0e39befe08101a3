# proc_self_mem.cu in Python: code written over a C library's function
# through /proc/self/mem (ctypes), then called on the record's count of
# cudaMalloc calls (patch.h's eight bytes). The interpreter is the
# machine's and readable, so its process is dumpable unless the
# statistics library makes it not (the grading sandbox asks it to):
# then /proc/self/mem is root's and the write is refused.
# needs: witness
# want: the statistics record does not match what the kernel saw|exit status 71|/proc/self/mem
# in the sandbox: exit status 71
import ctypes
import os
import sys

CODE = bytes([0x48, 0xC7, 0x07, 0x01, 0x00, 0x00, 0x00, 0xC3])  # mov qword [rdi], 1; ret
MAGIC = (0x5354415453534C4C).to_bytes(8, "little")


def record_count():
    """The address of the record's malloc_calls, found as patch.h finds it."""
    maps = [l.split() for l in open("/proc/self/maps")]
    for i, m in enumerate(maps):
        if "allocstats" not in m[-1] or not m[1].startswith("rw"):
            continue
        regions = [m]
        if i + 1 < len(maps) and len(maps[i + 1]) == 5:  # its .bss, no file
            regions.append(maps[i + 1])
        for r in regions:
            lo, hi = (int(x, 16) for x in r[0].split("-"))
            data = ctypes.string_at(lo, hi - lo)
            at = data.find(MAGIC)
            while at >= 0:
                version = int.from_bytes(data[at + 8:at + 16], "little")
                if at % 8 == 0 and 1 <= version < 100:
                    return lo + at + 16
                at = data.find(MAGIC, at + 1)
    return None


count = record_count()
if count is None:
    sys.exit(72)
libc = ctypes.CDLL(None)
victim = ctypes.cast(libc.strfry, ctypes.c_void_p).value
try:
    fd = os.open("/proc/self/mem", os.O_RDWR)
    os.pwrite(fd, CODE, victim)
except OSError as e:
    print("write /proc/self/mem:", e, file=sys.stderr)
    sys.exit(71)
libc.strfry.argtypes = [ctypes.c_void_p]
libc.strfry(count)
print("one allocation asked for")
