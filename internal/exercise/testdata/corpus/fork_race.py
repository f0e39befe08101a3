# fork_race.cu in Python (Day 77's kind of run): the child of os.fork
# starts a thread that swaps /dev/null and the record's channel at the
# channel's number (os.dup2) in a loop, and makes a hundred cudaMalloc
# through ctypes, so that its start frame may go nowhere. Stopped as
# fork_race.cu is: the program's own record counts the child before its
# first call, and a child whose start frame finds no channel is ended
# (exit status 72).
# want: exit status 72|does not follow|forked called CUDA|cut short|out of sequence|never started|the statistics record does not match what the kernel saw
import ctypes
import os
import stat
import threading


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
    def sock(fd):
        try:
            return stat.S_ISSOCK(os.fstat(fd).st_mode)
        except OSError:
            return False

    chan = next(fd for fd in range(3, 65536) if sock(fd))
    saved, null = os.dup(chan), os.open("/dev/null", os.O_WRONLY)
    stop = False

    def swap():
        while not stop:
            os.dup2(null, chan)
            os.dup2(saved, chan)

    t = threading.Thread(target=swap)
    t.start()
    for _ in range(100):
        rt.cudaMalloc(ctypes.byref(p), 1 << 20)
    stop = True
    t.join()
    os.dup2(null, chan)
    os._exit(0)
_, status = os.waitpid(pid, 0)
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    raise SystemExit(72)
if rt.cudaMalloc(ctypes.byref(p), 1 << 20) == 0:
    rt.cudaFree(p)
print("one allocation asked for")
