package witness

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
)

// A uprobe's breakpoint is a byte in the process's copy of the probed
// page, and a write through /proc/PID/mem (FOLL_FORCE) writes a page of
// code that no mapping lets the program write: the runtime file's own
// bytes put back over each breakpoint, the calls made, the breakpoints
// put back before the end if it likes, and nothing counted
// (corpus-open/proc_mem_probe.cu: root keeps its /proc/self/mem whatever
// its dumpable flag, so the plain runner as root passed it). So the
// kernel counts, per run, the writes its threads make through a
// /proc/PID/mem file (an fentry program, or a kprobe, on the kernel's
// mem_write), and any fails the run: the CUDA driver, the runtime, CuPy
// and PyTorch are not known to write so (a debugger does), though no
// honest run has been counted yet: the count attached on no machine of
// session 23's (BENCHMARKS.md). A run's threads write another process's
// memory so too (a forked child's).

// memWriteKey is the counting map's key of the writes through
// /proc/PID/mem, after every probe's sites (beside the faults').
func (w *Witness) memWriteKey() uint64 { return siteKey(len(w.probes), 2) }

// watchMemWrites loads and attaches the count of writes through
// /proc/PID/mem. Where it cannot be (a kernel without kprobes, or one
// whose mem_write is not a function of its own), memWrites stays nil
// and MemWritesOff says why.
func (w *Witness) watchMemWrites() error {
	ins := asm.Instructions{
		asm.FnGetCurrentCgroupId.Call(),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.LoadImm(asm.R1, int64(w.memWriteKey()), asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, w.counts.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
	// An fentry program (BPF trampolines, the kernel's BTF) needs no
	// tracefs mounted; a kprobe is the way where there is none.
	var tried []string
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "lessons_memw", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceFEntry, AttachTo: "mem_write", License: "GPL", Instructions: ins})
	if err == nil {
		l, err := link.AttachTracing(link.TracingOptions{Program: p})
		if err == nil {
			w.memWrites, w.memLink = p, l
			return nil
		}
		p.Close()
		tried = append(tried, err.Error())
	} else {
		tried = append(tried, err.Error())
	}
	p, err = ebpf.NewProgram(&ebpf.ProgramSpec{Name: "lessons_memw", Type: ebpf.Kprobe, License: "GPL", Instructions: ins})
	if err != nil {
		return fmt.Errorf("witness: the count of writes through /proc/PID/mem cannot be loaded: %w", err)
	}
	l, err := link.Kprobe("mem_write", p, nil)
	if err != nil {
		p.Close()
		return fmt.Errorf("witness: the count of writes through /proc/PID/mem cannot be attached: %w (fentry: %s)", err, strings.Join(tried, "; "))
	}
	w.memWrites, w.memLink = p, l
	return nil
}

// MemWrites are the writes the run's threads made through a
// /proc/PID/mem file, once Counts has ended the watch; ok is false
// where they are not counted here (MemWritesOff says why).
func (c *Watch) MemWrites() (n uint64, ok bool) { return c.memWrites, c.w.memWrites != nil }

// MemWritesOff says why writes through /proc/PID/mem are not counted
// here ("" when they are).
func (w *Witness) MemWritesOff() string { return w.memWritesOff }
