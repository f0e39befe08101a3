#!/usr/bin/env python3
"""class-slurm-model.py: the class server (lessons serve --class) with its runs
on N Slurm nodes of G GPUs through pilot jobs, for a class of S students, from
figures measured on the H100 machine and on the one-node Slurm cluster
(BENCHMARKS.md: "The class server", "lessons grade on a cluster", "The class
server on a cluster"). Change a figure with NAME=VALUE:

    bench/class-slurm-model.py students=300 nodes=4 gpus=4

The model: each student runs a cell every `think` seconds (on average, as a
Poisson stream), checks every 4th time and submits every 8th (as the load
test's students did). A GPU serves the class's runs at the rate measured on
the H100 with its queue full (9.48 cells a second, each one CUDA start; a
check's or submission's program is one CUDA start at the same rate), so the
cluster is an M/M/c queue of c = nodes x gpus servers (Erlang C): the mean
wait for a slot, plus a lone run's own time to its first line, plus what a
pilot adds to a run. Against it: the same class on one H100 server, and a
Slurm job per cell (each run pays a task's start latency, and Slurm's
scheduler, not our queue, decides the order).
"""
import math
import sys

p = dict(
    students=300, nodes=4, gpus=4, build_nodes=1, build_cores=16,
    # H100, 60 students for 5 minutes with the queue full (2 hardware
    # queues, the shared build cache): 2886 cells in 304.6 s, each one CUDA
    # start (the driver's list; the load's checks and submissions of the
    # untouched stub start none), so a check's program starts at that rate.
    cell_rate=2886 / 304.6, start_rate=2886 / 304.6,
    # H100, a lone run on the idle class server: Run to first line, s.
    lone_s=0.265,
    # What a pilot adds to a run (server's snapshot, the hops to the node
    # and back, the node's sync and diff), s: bench/class-slurm.sh on the
    # one-node cluster (BENCHMARKS.md).
    pilot_s=0.020,
    # A Slurm task's start after its submission (one-node cluster, idle),
    # s; the pilot's sbatch-to-hello, s.
    job_start_s=2.65, pilot_up_s=2.6,
    # A build's time on a busy 16-core node (H100 machine, cgroups of 2
    # cores, 16 slots), s.
    build_s=497 / 188,
    check_every=4, submit_every=8, hidden_runs=1,
)
thinks = [120, 60, 30, 15, 10]
for a in sys.argv[1:]:
    k, _, v = a.partition("=")
    if k == "think":
        thinks = [float(x) for x in v.split(",")]
        continue
    if k not in p:
        sys.exit(f"class-slurm-model: unknown figure {k!r}; the figures are think, {', '.join(p)}")
    p[k] = float(v)


def erlang_c(c, a):
    """The chance that a request waits, M/M/c with offered load a (in servers)."""
    if a >= c:
        return 1.0
    s = sum(a**k / math.factorial(k) for k in range(c))
    top = a**c / math.factorial(c) * c / (c - a)
    return top / (s + top)


def queue(gpus, lam, demand):
    """Utilization and mean wait (s) of gpus servers, lam requests/s of mean demand s."""
    a = lam * demand
    rho = a / gpus
    if rho >= 1:
        return rho, math.inf
    return rho, erlang_c(gpus, a) * demand / (gpus - a)


def fmt_wait(w):
    return "saturated" if math.isinf(w) else f"{w:.3f}"


S = p["students"]
G = int(p["nodes"] * p["gpus"])
print(f"{S:.0f} students; {p['nodes']:.0f} nodes x {p['gpus']:.0f} GPUs = {G} GPUs through pilots; builds on {p['build_nodes']:.0f} build node(s) of {p['build_cores']:.0f} cores")
print()
print("| a student runs a cell every | runs a second (cells, checks, submissions) | GPUs busy | wait for a slot, mean s | Run to first line, mean s | one H100: busy, wait s | a Slurm job per cell: Run to first line s | builds busy |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for think in thinks:
    cells = S / think
    checks = cells / p["check_every"]
    submits = cells / p["submit_every"]
    lam = cells + checks + submits
    # GPU seconds a request takes at the measured full-queue rates.
    demand = (cells / p["cell_rate"] + (checks + submits * (1 + p["hidden_runs"])) / p["start_rate"]) / lam
    rho, wq = queue(G, lam, demand)
    first = wq + p["lone_s"] + p["pilot_s"]
    rho1, wq1 = queue(1, lam, demand)
    per_job = p["job_start_s"] + p["lone_s"] + wq
    builds = checks * p["build_s"] / max(p["build_nodes"] * p["build_cores"], 1)
    one = "saturated" if math.isinf(wq1) else f"{rho1:.0%}, {wq1:.2f}"
    if rho1 >= 1:
        one = f"{rho1:.0%}: saturated"
    print(f"| {think:.0f} s | {lam:.1f} | {rho:.0%} | {fmt_wait(wq)} | {fmt_wait(first)} | {one} | {fmt_wait(per_job)} | {builds:.0%} |")

# Everyone presses Run at once (the start of an exercise): round-robin by
# student gives each one slot in turn; the last waits for the whole burst.
burst = S / (G * p["cell_rate"])
print()
print(f"All {S:.0f} students press Run at once: the last first line after {burst + p['lone_s'] + p['pilot_s']:.1f} s on {G} GPUs "
      f"({S / p['cell_rate']:.0f} s on one H100; with a Slurm job per cell, {p['job_start_s']:.1f} s more for each and Slurm's own order).")
print(f"Pilots up: up to {p['pilot_up_s']:.1f} s from sbatch to a worker's hello on an idle cluster (a busy one: its queue's wait, once per pilot, not per run).")
