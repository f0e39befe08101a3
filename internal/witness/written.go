package witness

import (
	"fmt"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

// A uprobe belongs to its file's inode, so a copy of the CUDA runtime's
// file (a memfd, or a file written in /tmp) mapped executable at an
// address of the program's own runs the runtime's code unprobed: the
// copy's cudaMalloc called a hundred times, the image unmapped and the
// file removed before the end, where the statistics library looks at the
// mappings (corpus/moved_copy.cu: the loader's own mmap called as a
// function, past the library's loader-only rule; the plain runner as
// root has no noexec mount). So the kernel counts, per run, each mmap a
// run's thread asks for with PROT_EXEC of a file with no name (a memfd,
// a file removed) or whose inode changed (its ctime: a write, a chmod, a
// link) at or after the run's start, moved to its program's exec
// (watchExecs): a raw tracepoint on sys_enter (fentry and BPF LSM
// programs, on security_mmap_file, are refused on Linux 6.18 of the CI
// machine, whose lockdown is integrity), the descriptor followed to its
// file as watchMemWriteCalls does. The loader maps the program's
// libraries, the CUDA driver's and the interpreter's extensions so,
// files older than the run; the kernel maps the program itself at exec,
// no mmap. The statistics library fails the same mapping left mapped at
// its end ("ran code from a file written during its run"), which no
// honest run of the course makes (a JIT's code mapped from a file of its
// own is refused already by the library's loader-only rule).

// writtenKey is the counting map's key of those mappings, and startKey
// the run's start (ns since the epoch, the realtime clock a ctime is
// kept by): after the faults' and the /proc/PID/mem writes' keys.
func (w *Witness) writtenKey() uint64 { return siteKey(len(w.probes)+1, 0) }
func (w *Witness) startKey() uint64   { return siteKey(len(w.probes)+1, 1) }

// clockKey is the counting map's key of the run's settings of the
// realtime clock (watchClock).
func (w *Witness) clockKey() uint64 { return siteKey(len(w.probes)+1, 2) }

// offsetKey is the realtime clock less the monotonic one, at the run's
// start (what watchExecs adds to the monotonic clock).
func (w *Witness) offsetKey() uint64 { return siteKey(len(w.probes)+1, 3) }

// watchWritten loads and attaches the count of executable mappings of
// files written during the run; where it cannot be, written stays nil
// and WrittenOff says why.
func (w *Witness) watchWritten() error {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return fmt.Errorf("witness: the kernel's BTF: %w", err)
	}
	var off [10]int32
	for i, f := range [][2]string{{"pt_regs", "orig_ax"}, {"pt_regs", "dx"}, {"pt_regs", "r10"}, {"pt_regs", "r8"}, {"task_struct", "files"}, {"files_struct", "fdt"}, {"fdtable", "max_fds"}, {"fdtable", "fd"}, {"file", "f_inode"}, {"inode", "i_ctime_sec"}} {
		if off[i], err = memberOffset(spec, f[0], f[1]); err != nil {
			return err
		}
	}
	nsec, err := memberOffset(spec, "inode", "i_ctime_nsec")
	if err != nil {
		return err
	}
	nlink, err := memberOffset(spec, "inode", "i_nlink")
	if err != nil {
		return err
	}
	mm, err := memberOffset(spec, "task_struct", "mm")
	if err != nil {
		return err
	}
	exe, err := memberOffset(spec, "mm_struct", "exe_file")
	if err != nil {
		return err
	}
	read := func(dst, src asm.Register, o int32, size asm.Size) asm.Instructions {
		return asm.Instructions{
			asm.Mov.Reg(asm.R3, src),
			asm.Add.Imm(asm.R3, o),
			asm.Mov.Reg(asm.R1, asm.RFP),
			asm.Add.Imm(asm.R1, -24),
			asm.Mov.Imm(asm.R2, int32(size.Sizeof())),
			asm.FnProbeReadKernel.Call(),
			asm.JNE.Imm(asm.R0, 0, "out"),
			asm.LoadMem(dst, asm.RFP, -24, size),
		}
	}
	ins := asm.Instructions{asm.LoadMem(asm.R6, asm.R1, 0, asm.DWord)} // struct pt_regs *
	ins = append(ins, read(asm.R7, asm.R6, off[0], asm.DWord)...)
	ins = append(ins, asm.JNE.Imm(asm.R7, 9, "out")) // mmap
	ins = append(ins, read(asm.R7, asm.R6, off[1], asm.DWord)...)
	ins = append(ins, asm.JSet.Imm(asm.R7, 4, "exec"), asm.Ja.Label("out")) // PROT_EXEC
	x := read(asm.R7, asm.R6, off[2], asm.DWord)
	x[0] = x[0].WithSymbol("exec")
	ins = append(ins, x...)
	ins = append(ins, asm.JSet.Imm(asm.R7, 0x20, "out")) // MAP_ANONYMOUS
	// The run's start, where the thread is in a watched run's cgroup.
	ins = append(ins,
		asm.FnGetCurrentCgroupId.Call(),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.LoadImm(asm.R1, int64(w.startKey()), asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, w.counts.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R7, asm.R0, 0, asm.DWord),
		asm.JEq.Imm(asm.R7, 0, "out"),
	)
	ins = append(ins, read(asm.R8, asm.R6, off[3], asm.DWord)...)
	ins = append(ins, asm.Mov.Reg32(asm.R8, asm.R8), // an unsigned int fd
		asm.FnGetCurrentTask.Call(),
		asm.Mov.Reg(asm.R9, asm.R0))
	ins = append(ins, read(asm.R9, asm.R9, off[4], asm.DWord)...) // files
	ins = append(ins, read(asm.R9, asm.R9, off[5], asm.DWord)...) // fdt
	ins = append(ins, read(asm.R1, asm.R9, off[6], asm.Word)...)  // max_fds
	ins = append(ins, asm.JGE.Reg(asm.R8, asm.R1, "out"))
	ins = append(ins, read(asm.R9, asm.R9, off[7], asm.DWord)...) // fd[]
	ins = append(ins, asm.LSh.Imm(asm.R8, 3), asm.Add.Reg(asm.R9, asm.R8))
	ins = append(ins, read(asm.R9, asm.R9, 0, asm.DWord)...) // the file
	ins = append(ins, asm.JEq.Imm(asm.R9, 0, "out"))
	ins = append(ins, read(asm.R9, asm.R9, off[8], asm.DWord)...) // f_inode
	ins = append(ins, asm.JEq.Imm(asm.R9, 0, "out"))
	// The program's own file (its mm's exe_file, the inode the kernel
	// mapped at exec) counts whenever it was written: the kernel maps a
	// program, never the program itself, and a program that carries a
	// copy of the runtime's file in its own (an .incbin of it) maps that
	// copy's code from an inode no uprobe is on and whose ctime is older
	// than the run (corpus/moved_self.cu).
	ins = append(ins, asm.FnGetCurrentTask.Call(), asm.Mov.Reg(asm.R8, asm.R0))
	ins = append(ins, read(asm.R8, asm.R8, mm, asm.DWord)...) // mm
	ins = append(ins, asm.JEq.Imm(asm.R8, 0, "named"))
	ins = append(ins, read(asm.R8, asm.R8, exe, asm.DWord)...) // exe_file
	ins = append(ins, asm.JEq.Imm(asm.R8, 0, "named"))
	ins = append(ins, read(asm.R8, asm.R8, off[8], asm.DWord)...) // its f_inode
	ins = append(ins, asm.JEq.Reg(asm.R8, asm.R9, "count"))
	// A file with no name (a memfd, a file removed) counts whenever it
	// was written.
	named := read(asm.R8, asm.R9, nlink, asm.Word)
	named[0] = named[0].WithSymbol("named")
	ins = append(ins, named...)
	ins = append(ins, asm.JEq.Imm(asm.R8, 0, "count"))
	ins = append(ins, read(asm.R8, asm.R9, off[9], asm.DWord)...) // i_ctime_sec
	ins = append(ins, read(asm.R9, asm.R9, nsec, asm.Word)...)    // i_ctime_nsec
	ins = append(ins,
		asm.Mul.Imm(asm.R8, 1000000000),
		asm.Add.Reg(asm.R8, asm.R9),
		asm.JLT.Reg(asm.R8, asm.R7, "out"), // changed before the run
		// Nor one whose ctime is later than now: changed before the
		// realtime clock was set back (a machine whose clock is stepped:
		// the CI machine's is). Setting it is counted (watchClock).
		asm.FnGetCurrentCgroupId.Call(),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.LoadImm(asm.R1, int64(w.offsetKey()), asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, w.counts.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "count"),
		asm.LoadMem(asm.R6, asm.R0, 0, asm.DWord),
		asm.FnKtimeGetNs.Call(),
		asm.Add.Reg(asm.R0, asm.R6),
		asm.JGT.Reg(asm.R8, asm.R0, "out"),
	)
	count := w.countAt(w.writtenKey())
	count[0] = count[0].WithSymbol("count")
	ins = append(ins, count...)
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "lessons_xmap", Type: ebpf.RawTracepoint, License: "GPL", Instructions: ins})
	if err != nil {
		return fmt.Errorf("witness: the count of executable mappings of files written during a run cannot be loaded: %w", err)
	}
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: "sys_enter", Program: p})
	if err != nil {
		p.Close()
		return fmt.Errorf("witness: the count of executable mappings of files written during a run cannot be attached: %w", err)
	}
	if err := w.watchExecs(); err != nil {
		l.Close()
		p.Close()
		return err
	}
	si, err := memberOffset(spec, "pt_regs", "si")
	if err != nil {
		l.Close()
		p.Close()
		return err
	}
	di, err := memberOffset(spec, "pt_regs", "di")
	if err != nil {
		l.Close()
		p.Close()
		return err
	}
	if err := w.watchClock(off[0], di, si); err != nil {
		l.Close()
		p.Close()
		return err
	}
	w.written, w.writtenLink = p, l
	return nil
}

// watchExecs moves a run's start to the time of each exec of its
// threads (the raw tracepoint sched_process_exec: the monotonic clock
// and the realtime clock's offset from it, kept by Start), where that is
// later: what the grader and the sandbox's helper put in place before
// the program starts (the statistics library built into a fresh cache
// and renamed there, the run's folder copied into the helper's tmpfs,
// the program last) has an older ctime, and the loader maps it after. A
// file the program changes within the coarse clock's tick after its
// start (4 ms here: a ctime is stamped by that clock) may be missed. A
// compiled program's run that starts a program is not trusted already,
// and a Python script's interpreter is started so once.
func (w *Witness) watchExecs() error {
	ins := asm.Instructions{
		asm.FnGetCurrentCgroupId.Call(),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.LoadImm(asm.R1, int64(w.offsetKey()), asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, w.counts.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R6, asm.R0, 0, asm.DWord),
		asm.LoadImm(asm.R1, int64(w.startKey()), asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, w.counts.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.FnKtimeGetNs.Call(),
		asm.Add.Reg(asm.R0, asm.R6),
		asm.LoadMem(asm.R1, asm.R7, 0, asm.DWord),
		asm.JGE.Reg(asm.R1, asm.R0, "out"),
		asm.StoreMem(asm.R7, 0, asm.R0, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "lessons_xexec", Type: ebpf.RawTracepoint, License: "GPL", Instructions: ins})
	if err != nil {
		return fmt.Errorf("witness: the run's exec cannot be watched: %w", err)
	}
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: "sched_process_exec", Program: p})
	p.Close() // the link holds it
	if err != nil {
		return fmt.Errorf("witness: the run's exec cannot be watched: %w", err)
	}
	w.execLink = l
	return nil
}

// watchClock counts the run's settings of the clock a ctime is kept by:
// root in the plain runner could set it back, write its copy (a ctime
// older than the run), and set it forward again. A raw tracepoint on
// sys_enter counts clock_settime and settimeofday, and adjtimex and
// clock_adjtime whose modes are not 0 (0 reads): no honest run sets the
// clock (the sandbox's program has no CAP_SYS_TIME), and any fails the
// run.
func (w *Witness) watchClock(origAX, di, si int32) error {
	ins := asm.Instructions{
		asm.LoadMem(asm.R6, asm.R1, 0, asm.DWord), // struct pt_regs *
		asm.Mov.Reg(asm.R3, asm.R6),
		asm.Add.Imm(asm.R3, origAX),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -24),
		asm.Mov.Imm(asm.R2, 8),
		asm.FnProbeReadKernel.Call(),
		asm.JNE.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R7, asm.RFP, -24, asm.DWord),
		asm.JEq.Imm(asm.R7, 227, "count"), // clock_settime
		asm.JEq.Imm(asm.R7, 164, "count"), // settimeofday
		asm.JEq.Imm(asm.R7, 159, "adj"),   // adjtimex(buf)
		asm.JEq.Imm(asm.R7, 305, "adj2"),  // clock_adjtime(clock, buf)
		asm.Ja.Label("out"),
		// The struct timex's modes, its first word: adjtimex's first
		// argument, clock_adjtime's second.
		asm.Mov.Imm(asm.R8, si).WithSymbol("adj2"),
		asm.Ja.Label("modes"),
		asm.Mov.Imm(asm.R8, di).WithSymbol("adj"),
		asm.Mov.Reg(asm.R3, asm.R6).WithSymbol("modes"),
		asm.Add.Reg(asm.R3, asm.R8),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -24),
		asm.Mov.Imm(asm.R2, 8),
		asm.FnProbeReadKernel.Call(),
		asm.JNE.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R3, asm.RFP, -24, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -24),
		asm.Mov.Imm(asm.R2, 4),
		asm.FnProbeReadUser.Call(),
		asm.JNE.Imm(asm.R0, 0, "count"), // unreadable: the kernel's look decides, counted
		asm.LoadMem(asm.R1, asm.RFP, -24, asm.Word),
		asm.JEq.Imm(asm.R1, 0, "out"),
	}
	count := w.countAt(w.clockKey())
	count[0] = count[0].WithSymbol("count")
	ins = append(ins, count...)
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "lessons_clock", Type: ebpf.RawTracepoint, License: "GPL", Instructions: ins})
	if err != nil {
		return fmt.Errorf("witness: the run's settings of the clock cannot be counted: %w", err)
	}
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: "sys_enter", Program: p})
	p.Close() // the link holds it
	if err != nil {
		return fmt.Errorf("witness: the run's settings of the clock cannot be counted: %w", err)
	}
	w.clockLink = l
	return nil
}

// Clock are the run's settings of the realtime clock (counted with
// Written).
func (c *Watch) Clock() uint64 { return c.clock }

// runStart is what Start keeps under startKey: now, in ns since the
// epoch, by the coarse clock the kernel stamps a file's ctime with (a
// tick behind the fine one: a file changed after the start has a ctime
// at or after it, one changed within the tick before may count too);
// and under offsetKey, the realtime clock less the monotonic one (0
// where they cannot be read: the start then stays).
func runStart() (start, offset uint64) {
	var coarse, rt, mono unix.Timespec
	if unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &coarse) != nil {
		return uint64(time.Now().Add(-50 * time.Millisecond).UnixNano()), 0
	}
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono) != nil || unix.ClockGettime(unix.CLOCK_REALTIME, &rt) != nil {
		return uint64(coarse.Nano()), 0
	}
	return uint64(coarse.Nano()), uint64(rt.Nano() - mono.Nano())
}

// Written are the executable mappings the run's threads asked for of
// files written during the run, once Counts has ended the watch; ok is
// false where they are not counted here (WrittenOff says why).
func (c *Watch) Written() (n uint64, ok bool) { return c.written, c.w.written != nil }

// WrittenOff says why executable mappings of files written during a run
// are not counted here ("" when they are).
func (w *Witness) WrittenOff() string { return w.writtenOff }
