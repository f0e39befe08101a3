"""The reference client's cost of a trivial cell, to set beside lessons'
BenchmarkCell (internal/jupyter): jupyter_client starts the python3 kernel,
then N times sends execute_request "x = 1" and reads iopub until its status
idle. Prints per cell, in microseconds: the whole round trip, the kernel's
own busy span (its status busy to its status idle, by the kernel's dates),
and the rest (what the client and the messaging add).

    /usr/bin/python3 bench/notebooks/jupyter_client_cell.py 200
"""
import sys
import time

from jupyter_client.manager import start_new_kernel

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
km, kc = start_new_kernel(kernel_name="python3")
try:
    total = busy = 0.0
    for i in range(n):
        t0 = time.perf_counter()
        msg_id = kc.execute("x = 1")
        b = None
        while True:
            m = kc.get_iopub_msg(timeout=10)
            if m["parent_header"].get("msg_id") != msg_id or m["msg_type"] != "status":
                continue
            state = m["content"]["execution_state"]
            if state == "busy":
                b = m["header"]["date"]
            elif state == "idle":
                total += time.perf_counter() - t0
                busy += (m["header"]["date"] - b).total_seconds()
                break
    print(f"{n} cells: {total / n * 1e6:.0f} us/op, busy {busy / n * 1e6:.0f} us/op, client {(total - busy) / n * 1e6:.0f} us/op")
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    del kc, km  # before the interpreter's end, where their __del__ logs into a torn-down logging
