#!/usr/bin/env python3
"""slurm-model.py: the wall time of lessons grade --slurm on N nodes of G GPUs
and C cores, from costs measured on the H100 machine and on the one-node
Slurm cluster (BENCHMARKS.md, "lessons grade on a cluster"). Change a figure
with NAME=VALUE arguments: bench/slurm-model.py students=300 exercises=7 nodes=4 gpus=4

The model: builds, then runs (the run array waits for the whole build
array: --dependency=afterany). Builds share the nodes' cores; each item's
run costs its GPU time (a fraction of programs loop until the time limit);
every wave of array tasks pays Slurm's start latency; the submitting node
merges each result file into SQLite.
"""
import math
import sys

p = dict(
    students=300, exercises=7, nodes=4, gpus=4, cores=16,
    # H100 machine, 16 cores: 188 builds summed 497 s in 16 build slots,
    # each in a cgroup of 2 cores (BENCHMARKS.md, cold grade of 64 x 3).
    build_s=497 / 188,
    # A run at --per-gpu 1: about 0.27 s (172 runs); at --per-gpu 8
    # --gpu-queues 2 the GPU starts about 10 CUDA processes a second.
    run_s_1=0.27, run_s_8=0.10,
    # 12 of the 192 generated programs loop until the 10 s limit.
    loop_frac=12 / 192, limit_s=10.0,
    # One-node cluster (bench/slurm-overhead.sh): preflight, submission,
    # a freed slot's next task, the dependency's release, a merged result.
    preflight_s=1.1, submit_s=0.2, wave_s=2.7, dep_s=2.8, merge_s=0.63 / 2100, poll_s=5.0,
    items_per_task=20,
)
for a in sys.argv[1:]:
    k, _, v = a.partition("=")
    if k not in p:
        sys.exit(f"slurm-model: unknown figure {k!r}; the figures are {', '.join(p)}")
    p[k] = float(v)

items = p["students"] * p["exercises"]
gpus = p["nodes"] * p["gpus"]
cores = p["nodes"] * p["cores"]
builds = items * p["build_s"] / cores
tasks = math.ceil(items / p["items_per_task"])
waves = math.ceil(tasks / gpus)
over = p["preflight_s"] + p["submit_s"] + p["wave_s"] + p["dep_s"] + waves * p["wave_s"] + items * p["merge_s"] + p["poll_s"] / 2
print(f"{items:.0f} items on {p['nodes']:.0f} nodes x {p['gpus']:.0f} GPUs ({cores:.0f} cores), {tasks} run tasks of {p['items_per_task']:.0f} ({waves} waves)")
print("| --per-gpu | builds s | runs s | Slurm's overhead s | cluster, total | one box of 16 cores, 1 GPU |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for per, run_s, slots in ((1, p["run_s_1"], 1), (8, p["run_s_8"], 8)):
    gpu_s = items * ((1 - p["loop_frac"]) * run_s + p["loop_frac"] * p["limit_s"] / slots)
    runs = gpu_s / gpus
    total = builds + runs + over
    # A local grade overlaps builds and runs: the longer of the two.
    local = max(items * p["build_s"] / p["cores"], gpu_s)
    print(f"| {per} | {builds:.0f} | {runs:.0f} | {over:.0f} | **{total:.0f} s ({total / 60:.1f} min)** | {local:.0f} s ({local / 60:.1f} min) |")
