package witness

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
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
// /proc/PID/mem, after every probe's sites (beside the faults');
// memWriteExitKey, of those the system calls' way sees at their exit.
func (w *Witness) memWriteKey() uint64     { return siteKey(len(w.probes), 2) }
func (w *Witness) memWriteExitKey() uint64 { return siteKey(len(w.probes), 3) }

// countAt adds one to the run's count at key: the end of each way's
// program.
func (w *Witness) countAt(k uint64) asm.Instructions {
	return asm.Instructions{
		asm.FnGetCurrentCgroupId.Call(),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.LoadImm(asm.R1, int64(k), asm.DWord),
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
}

// watchMemWrites loads and attaches the count of writes through
// /proc/PID/mem: an fentry program or a kprobe on mem_write where one
// attaches, else the system calls' way (watchMemWriteCalls). Where none
// can be, memWrites stays nil and MemWritesOff says why; MemWritesWay
// says which counts.
func (w *Witness) watchMemWrites() error {
	ins := w.countAt(w.memWriteKey())
	// An fentry program (BPF trampolines, the kernel's BTF) needs no
	// tracefs mounted; a kprobe is the way where there is none.
	var tried []string
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "lessons_memw", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceFEntry, AttachTo: "mem_write", License: "GPL", Instructions: ins})
	if err == nil {
		l, err := link.AttachTracing(link.TracingOptions{Program: p})
		if err == nil {
			w.memWrites, w.memLink, w.memWritesWay = p, l, "an fentry program on the kernel's mem_write"
			return nil
		}
		p.Close()
		tried = append(tried, "fentry: "+err.Error())
	} else {
		tried = append(tried, "fentry: "+err.Error())
	}
	p, err = ebpf.NewProgram(&ebpf.ProgramSpec{Name: "lessons_memw", Type: ebpf.Kprobe, License: "GPL", Instructions: ins})
	if err == nil {
		l, err := link.Kprobe("mem_write", p, nil)
		if err == nil {
			w.memWrites, w.memLink, w.memWritesWay = p, l, "a kprobe on the kernel's mem_write"
			return nil
		}
		p.Close()
		tried = append(tried, "kprobe: "+err.Error())
	} else {
		tried = append(tried, "kprobe: "+err.Error())
	}
	if err := w.watchMemWriteCalls(); err != nil {
		return fmt.Errorf("%w (%s)", err, strings.Join(tried, "; "))
	}
	return nil
}

// memWriteCalls are the x86-64 system calls that write a file's bytes
// from the caller's memory by its descriptor: write, pwrite64, writev,
// pwritev, pwritev2. What else could reach a file's write refuses a
// /proc/PID/mem file, which has write and no write_iter nor splice_write
// (sendfile, splice, copy_file_range, the aio's writes), or is refused
// in every judged run (io_uring_setup); other architectures' numbers
// (int 0x80's) are refused by the statistics library's filter.
var memWriteCalls = []int32{1, 18, 20, 296, 328}

// watchMemWriteCalls is the way where neither fentry nor a kprobe
// attaches (Linux 6.18 of the GPU machine: no kprobes built in, fentry
// refused): a program on the raw tracepoints sys_enter and sys_exit
// (no tracefs needed, as signal_deliver's) that, for each system call
// of memWriteCalls, follows its descriptor in the calling thread's
// table (task_struct.files, its fdtable, the file) to its file's
// operations and counts it where their write is the kernel's mem_write
// (from /proc/kallsyms): a /proc/PID/mem file however it was opened
// (/proc/self, /proc/thread-self, /proc/PID/task/TID/mem, a relative
// path from a directory's descriptor, a symlink, /proc/self/fd/N, a
// descriptor passed or duplicated). A descriptor swapped between the
// look and the kernel's own (another thread's dup2) is looked at again
// at the system call's exit; one swapped in after the entry and out
// again before the exit is not seen (the write's own time, tried once
// per write: a write seen fails the run). The offsets are the kernel's
// BTF's.
func (w *Witness) watchMemWriteCalls() error {
	addrs, err := kernelSymbol("mem_write")
	if err != nil {
		return err
	}
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return fmt.Errorf("witness: the kernel's BTF: %w", err)
	}
	var off [8]int32
	for i, f := range [][2]string{{"pt_regs", "orig_ax"}, {"pt_regs", "di"}, {"task_struct", "files"}, {"files_struct", "fdt"}, {"fdtable", "max_fds"}, {"fdtable", "fd"}, {"file", "f_op"}, {"file_operations", "write"}} {
		if off[i], err = memberOffset(spec, f[0], f[1]); err != nil {
			return err
		}
	}
	// read loads the kernel's size bytes at src+o into dst, or leaves
	// the program.
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
	prog := func(k uint64) asm.Instructions {
		ins := asm.Instructions{
			asm.LoadMem(asm.R6, asm.R1, 0, asm.DWord), // struct pt_regs *: the caller's registers
		}
		ins = append(ins, read(asm.R7, asm.R6, off[0], asm.DWord)...)
		for _, nr := range memWriteCalls {
			ins = append(ins, asm.JEq.Imm(asm.R7, nr, "write"))
		}
		ins = append(ins, asm.Ja.Label("out"))
		first := read(asm.R8, asm.R6, off[1], asm.DWord)
		first[0] = first[0].WithSymbol("write")
		ins = append(ins, first...)
		ins = append(ins, asm.Mov.Reg32(asm.R8, asm.R8), // an unsigned int fd
			asm.FnGetCurrentTask.Call(),
			asm.Mov.Reg(asm.R9, asm.R0))
		ins = append(ins, read(asm.R9, asm.R9, off[2], asm.DWord)...) // files
		ins = append(ins, read(asm.R9, asm.R9, off[3], asm.DWord)...) // fdt
		ins = append(ins, read(asm.R7, asm.R9, off[4], asm.Word)...)  // max_fds
		ins = append(ins, asm.JGE.Reg(asm.R8, asm.R7, "out"))         // no such descriptor
		ins = append(ins, read(asm.R9, asm.R9, off[5], asm.DWord)...) // fd[]
		ins = append(ins, asm.LSh.Imm(asm.R8, 3), asm.Add.Reg(asm.R9, asm.R8))
		ins = append(ins, read(asm.R9, asm.R9, 0, asm.DWord)...) // the file
		ins = append(ins, asm.JEq.Imm(asm.R9, 0, "out"))
		ins = append(ins, read(asm.R9, asm.R9, off[6], asm.DWord)...) // f_op
		ins = append(ins, asm.JEq.Imm(asm.R9, 0, "out"))
		ins = append(ins, read(asm.R9, asm.R9, off[7], asm.DWord)...) // f_op->write
		for i, a := range addrs {
			ins = append(ins, asm.LoadImm(asm.R1, int64(a), asm.DWord))
			if i == len(addrs)-1 {
				ins = append(ins, asm.JNE.Reg(asm.R9, asm.R1, "out"))
			} else {
				ins = append(ins, asm.JEq.Reg(asm.R9, asm.R1, "count"))
			}
		}
		count := w.countAt(k)
		count[0] = count[0].WithSymbol("count")
		return append(ins, count...)
	}
	var progs [2]*ebpf.Program
	var links [2]link.Link
	for i, tp := range []string{"sys_enter", "sys_exit"} {
		k := w.memWriteKey()
		if i == 1 {
			k = w.memWriteExitKey()
		}
		p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Name: "lessons_memw", Type: ebpf.RawTracepoint, License: "GPL", Instructions: prog(k)})
		if err == nil {
			links[i], err = link.AttachRawTracepoint(link.RawTracepointOptions{Name: tp, Program: p})
			if err != nil {
				p.Close()
			}
		}
		if err != nil {
			for j := range i {
				links[j].Close()
				progs[j].Close()
			}
			return fmt.Errorf("witness: the count of writes through /proc/PID/mem cannot be attached to %s: %w", tp, err)
		}
		progs[i] = p
	}
	// One program is kept to close; the other's link holds its own.
	progs[1].Close()
	w.memWrites, w.memLink, w.memLinkExit = progs[0], links[0], links[1]
	w.memWritesWay = "raw tracepoints on sys_enter and sys_exit (write, pwrite64, writev, pwritev, pwritev2 to a file whose write is the kernel's mem_write)"
	return nil
}

// kernelSymbol is the addresses of the kernel's text symbol name, from
// /proc/kallsyms (root reads the real ones).
func kernelSymbol(name string) ([]uint64, error) {
	data, err := os.ReadFile("/proc/kallsyms")
	if err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	var out []uint64
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != name || (f[1] != "t" && f[1] != "T") {
			continue
		}
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err == nil && a != 0 {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("witness: the kernel's %s is not in /proc/kallsyms (or its addresses are hidden)", name)
	}
	return out, nil
}

// memberOffset is the byte offset of typ's member name in the kernel's
// BTF, in an anonymous struct or union of it too.
func memberOffset(spec *btf.Spec, typ, name string) (int32, error) {
	var s *btf.Struct
	if err := spec.TypeByName(typ, &s); err != nil {
		return 0, fmt.Errorf("witness: the kernel's struct %s: %w", typ, err)
	}
	var find func(ms []btf.Member, base uint32) (uint32, bool)
	find = func(ms []btf.Member, base uint32) (uint32, bool) {
		for _, m := range ms {
			o := base + uint32(m.Offset)
			if m.Name == name {
				return o, true
			}
			if m.Name != "" {
				continue
			}
			switch t := btf.UnderlyingType(m.Type).(type) {
			case *btf.Struct:
				if r, ok := find(t.Members, o); ok {
					return r, true
				}
			case *btf.Union:
				if r, ok := find(t.Members, o); ok {
					return r, true
				}
			}
		}
		return 0, false
	}
	o, ok := find(s.Members, 0)
	if !ok || o%8 != 0 {
		return 0, fmt.Errorf("witness: the kernel's struct %s has no member %s at a byte", typ, name)
	}
	return int32(o / 8), nil
}

// MemWrites are the writes the run's threads made through a
// /proc/PID/mem file, once Counts has ended the watch; ok is false
// where they are not counted here (MemWritesOff says why).
func (c *Watch) MemWrites() (n uint64, ok bool) { return c.memWrites, c.w.memWrites != nil }

// MemWritesOff says why writes through /proc/PID/mem are not counted
// here ("" when they are).
func (w *Witness) MemWritesOff() string { return w.memWritesOff }

// MemWritesWay says how writes through /proc/PID/mem are counted here
// ("" where they are not).
func (w *Witness) MemWritesWay() string { return w.memWritesWay }
