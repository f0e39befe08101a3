package witness

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
)

// Every way out of a probed function is counted, but a call can also
// leave by a fault: the driver writes its answer where the caller's
// pointer points just before its `ret`, and a program that points it at
// a page it mapped read-only catches the SIGSEGV, reads the answer from
// the faulting store's register and siglongjmps out
// (review/attack15/fault_exit.cu): no site counts the call. So the
// kernel counts, per run, the synchronous signals (a fault, a trap, a
// system call refused by the program's own filter) delivered to a
// handler of the program's: an honest program that faults ends by the
// signal, and no course program catches one. A BPF program on the raw
// tracepoint signal_deliver (in the receiving thread, before its
// handler runs) counts them under the run's cgroup.

// faultSignals are the signals a fault or a trap delivers: SIGILL,
// SIGTRAP, SIGBUS, SIGFPE, SIGSEGV and SIGSYS (a seccomp filter's or a
// syscall user dispatch's trap).
var faultSignals = []int32{4, 5, 7, 8, 11, 31}

// faultKey is the counting map's key of the caught faults, after every
// probe's sites; signalKey, of the other signals caught.
func (w *Witness) faultKey() uint64  { return siteKey(len(w.probes), 0) }
func (w *Witness) signalKey() uint64 { return siteKey(len(w.probes), 1) }

// watchFaults loads and attaches the count of caught faults. Where it
// cannot be (a kernel without raw tracepoints), faults stays nil and
// Faults says so.
func (w *Witness) watchFaults() error {
	ins := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.LoadMem(asm.R7, asm.R6, 0, asm.DWord), // the signal
		// Its action's handler (struct k_sigaction's first word): a
		// handler of the program's, not SIG_DFL (0) or SIG_IGN (1).
		asm.LoadMem(asm.R3, asm.R6, 16, asm.DWord),
		asm.JEq.Imm(asm.R3, 0, "out"),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -24),
		asm.Mov.Imm(asm.R2, 8),
		asm.FnProbeReadKernel.Call(),
		asm.JNE.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R1, asm.RFP, -24, asm.DWord),
		asm.JLE.Imm(asm.R1, 1, "out"),
		asm.FnGetCurrentCgroupId.Call(),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		// A fault's key, or another signal's.
		asm.LoadImm(asm.R1, int64(w.signalKey()), asm.DWord),
	}
	for _, s := range faultSignals {
		ins = append(ins, asm.JEq.Imm(asm.R7, s, "fault"))
	}
	ins = append(ins,
		asm.Ja.Label("count"),
		asm.LoadImm(asm.R1, int64(w.faultKey()), asm.DWord).WithSymbol("fault"),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord).WithSymbol("count"),
		asm.LoadMapPtr(asm.R1, w.counts.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	)
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "lessons_faults", Type: ebpf.RawTracepoint, License: "GPL", Instructions: ins})
	if err != nil {
		return fmt.Errorf("witness: the count of caught faults cannot be loaded: %w", err)
	}
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: "signal_deliver", Program: p})
	if err != nil {
		p.Close()
		return fmt.Errorf("witness: the count of caught faults cannot be attached: %w", err)
	}
	w.faults, w.faultLink = p, l
	return nil
}

// Faults are the fault signals the run's threads caught in handlers of
// their own, once Counts has ended the watch; ok is false where they
// are not counted here (FaultsOff says why).
func (c *Watch) Faults() (n uint64, ok bool) { return c.faults, c.w.faults != nil }

// Signals are the other signals the run's threads caught in handlers of
// their own (a timer's, say): shown, never judged. A handler can move
// the thread out of a CUDA function before its way out, as a caught
// fault can, but a timer's signal lands where it lands.
func (c *Watch) Signals() uint64 { return c.signals }

// FaultsOff says why caught faults are not counted here ("" when they
// are).
func (w *Witness) FaultsOff() string { return w.faultsOff }
