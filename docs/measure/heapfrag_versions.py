"""Which of review/expert/HEAPFRAG.md's versions each passage takes, from
the figures of FIGURES_ONLY=heapfrag bash docs/measure/figures.sh OUT.

Usage: python3 docs/measure/heapfrag_versions.py OUT/figures.txt
Prints one line per passage: the version, and the figures it was chosen
by. A figure the run did not give is named as missing, and the passage
is left to be written by hand.
"""
import re
import sys


def read(path):
    med, lines = {}, {}
    for line in open(path, encoding="utf-8"):
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) < 3:
            continue
        m = re.match(r"median (-?[0-9.eE+]+) \(min (-?[0-9.eE+]+), max (-?[0-9.eE+]+)", parts[2])
        if m:
            med[parts[0]] = tuple(float(x) for x in m.groups())
        else:
            lines[parts[0]] = parts[2]
    return med, lines


def without_memory(text):
    """The largest 'lists without memory: N' of a .lines figure."""
    got = [int(n) for n in re.findall(r"lists without memory: ([0-9]+)", text or "")]
    return max(got) if got else None


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: heapfrag_versions.py OUT/figures.txt")
    med, lines = read(sys.argv[1])

    def m(label):
        return med[label][0] if label in med else None

    def need(*labels):
        missing = [l for l in labels if l not in med]
        if missing:
            print("  missing: " + ", ".join(missing) + ": write by hand (OUT/raw says why)")
            return False
        return True

    print("Day 86, first cell:")
    if need("D86.sized.0.ms", "D86.sized.64.ms", "D86.sized.64.failed"):
        r = m("D86.sized.64.ms") / m("D86.sized.0.ms")
        if r < 0.5 and m("D86.sized.64.failed") == 0:
            v = "Version A"
        elif 0.75 <= r <= 1.25:
            v = "Version B"
        else:
            v = "Version C"
        print(f"  {v} (sized 64 MiB / default = {r:.2f}; failed on 64 MiB {m('D86.sized.64.failed'):.0f})")
    if need("D86.sized.16.failed"):
        print("  16 MiB sentence: " + ("add it" if m("D86.sized.16.failed") > 0 else "leave it out")
              + f" (failed on 16 MiB: {m('D86.sized.16.failed'):.0f})")

    print("Day 86, exercise, first part:")
    if need("D86.hvp.every.80", "D86.hvp.sized.80"):
        r = m("D86.hvp.every.80") / m("D86.hvp.sized.80")
        if r > 2:
            v = "Version E1"
        elif 0.67 <= r <= 1.5:
            v = "Version E2"
        elif 1.5 < r <= 2:
            v = "Version E2, 'changed it little'"
        else:
            v = "none: every below two thirds of sized, write by hand"
        print(f"  {v} (every / sized at 80% = {r:.2f})")

    print("Day 86, exercise, second part:")
    d80 = without_memory(lines.get("D86.hvp.default.80.lines"))
    d1 = without_memory(lines.get("D86.hvp.default.1.lines"))
    dh = without_memory(lines.get("D86.hvp.default.heap.lines"))
    if None in (d80, d1, dh):
        print("  missing: a D86.hvp.default.*.lines figure: write by hand")
    else:
        if d80 == 0 and (d1 > 0 or dh > 0):
            v = "Version D1"
        elif d80 > 0:
            v = "Version D2"
        else:
            v = "Version D3"
        print(f"  {v} (most lists without memory in one run: 80% {d80}, 1% {d1}, --heap {dh} of 400,000)")

    print("Day 76, the driver's pool:")
    if need("F.holes.grew", "F.holes.trim", "F.holes.trimwas"):
        g = m("F.holes.grew")
        v = "Version H1" if g >= 16 else "Version H2" if g == 0 else "neither: write by hand"
        print(f"  {v} (reserved grew by {g:.0f} MiB for 16 MiB from 4 MiB holes)")
        capped = lines.get("F.capped.result", "")
        served, refused = "served" in capped, bool(re.search(r"[0-9]+ (?!served)[a-z]", capped))
        if "not built" in capped or not capped:
            print("  capped sentence: leave it out (the capped case did not run)")
        elif served and not refused:
            print("  capped sentence: 'served from the holes' (" + capped + ")")
        elif refused and not served:
            print("  capped sentence: 'failed with out of memory' (" + capped + ")")
        else:
            print("  capped sentence: runs disagree, write by hand (" + capped + ")")
        t, w = m("F.holes.trim"), m("F.holes.trimwas")
        v = "T1" if t == w else "T2" if t < w else "neither: write by hand"
        print(f"  {v} (trim with holes: {t:.0f} of {w:.0f} MiB kept)")

    print("Day 69, a trim before the frees are seen:")
    if need("F.early.reserved", "F.early.after"):
        e, a = m("F.early.reserved"), m("F.early.after")
        v = "Version R1" if e >= 64 and a == 0 else "Version R2" if e == 0 else "neither: write by hand"
        print(f"  {v} (reserved at once {e:.0f} MiB, after a synchronisation {a:.0f} MiB)")

    print("Day 74, graph memory:")
    if need("G.across.reserved", "G.hole.reserved", "G.hole.used", "G.chain.reserved"):
        a = m("G.across.reserved")
        v = "Version G1" if a == 64 else "Version G2" if a == 128 else "neither: write by hand"
        print(f"  {v} (two graphs of 64 MiB reserved {a:.0f} MiB)")
        # The hole's graph needs 96 MiB at once (B with A, then B with C).
        # UsedMemHigh counts what the driver associated with graphs, not
        # what was live at once, so it is judged against 96, not used.
        r, u = m("G.hole.reserved"), m("G.hole.used")
        v = "Version G3" if r == 96 else "Version G4" if r > 96 else "neither: write by hand"
        print(f"  {v} (the hole: reserved high {r:.0f} MiB, used high {u:.0f}, for 96 MiB at once; chain {m('G.chain.reserved'):.0f})")


if __name__ == "__main__":
    main()
