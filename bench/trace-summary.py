#!/usr/bin/env python3
"""Where a grade run's time went, from its --trace file(s): when the builds
ended, how long builds and runs took per exercise, and how many build and
run slots were busy in each 5 s of the run."""
import json
import statistics as st
import sys


def events(path):
    """The events of a trace internal/tracer wrote: the JSON array, or,
    from a grade stopped half way, its lines up to the cut (one event a
    line, the array's brackets and commas around them)."""
    text = open(path).read()
    try:
        data = json.loads(text)
        return data["traceEvents"] if isinstance(data, dict) else data
    except ValueError:
        out = []
        for line in text.splitlines():
            line = line.strip().lstrip("[,").rstrip("]")
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
        return out


for path in sys.argv[1:]:
    ev = [e for e in events(path) if e["ph"] == "X"]
    builds = [e for e in ev if e["cat"] == "build"]
    runs = [e for e in ev if e["cat"] == "run"]
    end = max(e["ts"] + e["dur"] for e in ev) / 1e6
    bend = max((e["ts"] + e["dur"] for e in builds), default=0) / 1e6
    print(f"{path}: {end:.1f} s; {len(builds)} builds, the last ended at {bend:.1f} s "
          f"(sum {sum(e['dur'] for e in builds) / 1e6:.0f} s); {len(runs)} runs (sum {sum(e['dur'] for e in runs) / 1e6:.0f} s)")
    for x in sorted({e["args"]["exercise"] for e in ev}):
        b = sorted(e["dur"] / 1e6 for e in builds if e["args"]["exercise"] == x)
        r = sorted(e["dur"] / 1e6 for e in runs if e["args"]["exercise"] == x)
        line = f"  {x}:"
        if b:
            line += f" builds median {st.median(b):.2f} s, max {b[-1]:.2f} s;"
        if r:
            line += f" runs median {st.median(r):.2f} s, max {r[-1]:.2f} s"
        print(line)

    def busy(spans, w):
        return sum(max(0, min(e["ts"] + e["dur"], (w + 5) * 1e6) - max(e["ts"], w * 1e6)) for e in spans) / 5e6

    print("  busy slots per 5 s (runs/builds):",
          " ".join(f"{w}:{busy(runs, w):.1f}/{busy(builds, w):.1f}" for w in range(0, int(end) + 1, 5)))
