# Watches for judged programs ("prog") that run longer than LIMIT seconds and
# records, once each, every thread's state and where it is (ptrace: the
# instruction pointer and code addresses found on its stack, each named by
# file, offset and the nearest symbol). Usage: hangwatch.py OUTDIR [LIMIT]
import ctypes, os, struct, sys, time
out = sys.argv[1]; limit = float(sys.argv[2]) if len(sys.argv) > 2 else 10
os.makedirs(out, exist_ok=True)
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
hz = os.sysconf("SC_CLK_TCK")
seen = set()
symcache = {}
def syms(path):
    if path in symcache: return symcache[path]
    res = []
    try:
        data = open(path, "rb").read()
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        loads = [struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize) for i in range(phnum)]
        for s in secs:
            if s[1] not in (2, 11): continue
            st = secs[s[6]]
            for off in range(s[4], s[4] + s[5], 24):
                n, info, _, _, v, sz = struct.unpack_from("<IBBHQQ", data, off)
                if v == 0 or info & 0xf != 2: continue
                for p in loads:
                    if p[0] == 1 and p[3] <= v < p[3] + p[5]:
                        e = data.index(b"\0", st[4] + n)
                        res.append((v - p[3] + p[2], sz, data[st[4] + n:e].decode(errors="replace")))
    except Exception as ex:
        res = []
    res.sort(); symcache[path] = res
    return res
def name(pid, a):
    try:
        for l in open(f"/proc/{pid}/maps"):
            f = l.split()
            lo, hi = [int(x, 16) for x in f[0].split("-")]
            if lo <= a < hi:
                path = f[5] if len(f) > 5 else "anon"
                off = a - lo + int(f[2], 16)
                best = ""
                if path.startswith("/") and "x" in f[1]:
                    for so, sz, nm in syms(path):
                        if so <= off: best = "%s+%#x" % (nm, off - so)
                        else: break
                return "%s+%#x %s %s" % (os.path.basename(path), off, f[1], best)
    except Exception as ex:
        return "? %s" % ex
    return None
def where(pid, tid, w):
    if libc.ptrace(16, tid, None, None) != 0:
        w.write("  ptrace attach: errno %d\n" % ctypes.get_errno()); return
    st = ctypes.c_int()
    libc.waitpid(tid, ctypes.byref(st), 0x40000000)
    regs = (ctypes.c_ulong * 27)()
    libc.ptrace(12, tid, None, ctypes.byref(regs))
    rip, rsp = regs[16], regs[19]
    w.write("  rip %s\n" % name(pid, rip))
    try:
        with open(f"/proc/{pid}/mem", "rb") as m:
            m.seek(rsp); stack = m.read(8192)
        k = 0
        for i in range(0, len(stack) - 8, 8):
            v, = struct.unpack_from("<Q", stack, i)
            n = name(pid, v) if v > 0x10000 else None
            if n and " r-xp" in n:
                w.write("  stack+%#x %s\n" % (i, n)); k += 1
                if k >= 25: break
    except Exception as ex:
        w.write("  stack: %s\n" % ex)
    libc.ptrace(17, tid, None, None)
t_end = time.time() + float(os.environ.get("WATCH_FOR", "900"))
while time.time() < t_end:
    up = float(open("/proc/uptime").read().split()[0])
    for p in os.listdir("/proc"):
        if not p.isdigit() or p in seen: continue
        try:
            comm = open(f"/proc/{p}/comm").read().strip()
            if comm != "prog": continue
            stat = open(f"/proc/{p}/stat").read()
            start = int(stat.rsplit(")", 1)[1].split()[19]) / hz
            if up - start < limit: continue
            seen.add(p)
            with open(os.path.join(out, "hang-%s.txt" % p), "w") as w:
                w.write("pid %s age %.1f s cmdline %r\n" % (p, up - start, open(f"/proc/{p}/cmdline").read()))
                for rnd in range(3):
                    for t in sorted(os.listdir(f"/proc/{p}/task"), key=int):
                        ts = open(f"/proc/{p}/task/{t}/stat").read()
                        state = ts.rsplit(")", 1)[1].split()[0]
                        tc = open(f"/proc/{p}/task/{t}/comm").read().strip()
                        wch = open(f"/proc/{p}/task/{t}/wchan").read()
                        w.write("round %d task %s %s %s wchan %s\n" % (rnd, t, tc, state, wch))
                        where(int(p), int(t), w)
                    time.sleep(0.3)
        except Exception as ex:
            pass
    time.sleep(1)
