// Package witness counts a run's calls of chosen functions of shared
// libraries (the CUDA runtime's and driver's entry points) from outside
// the program: uprobes, set by the kernel on the library's file, that run
// a counting BPF program at each call of every process mapping it; the
// count is kept per cgroup, so a run in a cgroup of its own is counted
// alone, from its first instruction, children included. The program
// cannot see or remove a probe without privileges, and where it may not
// write code (the sandbox's NoWriteExec) it cannot patch the breakpoint
// away either. Loading BPF needs root, or CAP_BPF and CAP_PERFMON.
package witness

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
)

// Probe is one count: calls of any of Symbols in the library file that
// a run maps under a name starting with Lib ("libcudart", "libcuda.so").
type Probe struct {
	// Name says what is counted, as the record names it
	// ("malloc_async_calls"), or, for a count the record has no twin of,
	// the library's function ("cuMemAllocAsync").
	Name    string
	Lib     string
	Symbols []string
	// Arg, when not 0, makes the probe add the value of the function's
	// Arg-th integer argument at each call (cudaMalloc's 2, the size
	// asked for) instead of one.
	Arg int
}

// argOffset is where, in the registers the kernel hands a uprobe's
// program, the arg-th integer argument of a call lies (the System V
// ABI's rdi, rsi, rdx, rcx, r8, r9 on x86-64; x0 to x7 on arm64).
func argOffset(arg int) (int16, error) {
	switch runtime.GOARCH {
	case "amd64":
		if offs := []int16{112, 104, 96, 88, 72, 64}; arg >= 1 && arg <= len(offs) {
			return offs[arg-1], nil
		}
	case "arm64":
		if arg >= 1 && arg <= 8 {
			return int16(8 * (arg - 1)), nil
		}
	}
	return 0, fmt.Errorf("witness: argument %d is not read on %s", arg, runtime.GOARCH)
}

// maxRuns is how many runs may be watched at once.
const maxRuns = 1024

// key is the counting map's key: the run's cgroup and the probe.
type key struct {
	Cgroup uint64
	Probe  uint64
}

// Witness is a set of probes, attached to each library file the first
// time a run is watched over it. It is safe for concurrent use.
type Witness struct {
	probes []Probe
	counts *ebpf.Map
	progs  []*ebpf.Program

	mu       sync.Mutex
	attached map[string][]link.Link // by library file
	missing  map[string][]string    // by library file: probes with no symbol there
	parent   string                 // the folder of the runs' cgroups (Group)
	removing sync.WaitGroup         // runs' cgroups being removed
}

// Open loads a counting program per probe. It fails where BPF cannot be
// loaded here (not root, no CAP_BPF and CAP_PERFMON, a kernel without
// BPF or uprobes): the error says so.
func Open(probes []Probe) (*Witness, error) {
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	m, err := ebpf.NewMap(&ebpf.MapSpec{
		Name: "lessons_calls", Type: ebpf.Hash, KeySize: 16, ValueSize: 8,
		MaxEntries: uint32(maxRuns * max(len(probes), 1)),
	})
	if err != nil {
		return nil, fmt.Errorf("witness: a BPF map cannot be made here (root, or CAP_BPF and CAP_PERFMON, are needed): %w", err)
	}
	w := &Witness{probes: probes, counts: m, attached: map[string][]link.Link{}, missing: map[string][]string{}}
	for i, pr := range probes {
		ins, err := counter(m, uint64(i), pr.Arg)
		if err != nil {
			w.Close()
			return nil, err
		}
		p, err := ebpf.NewProgram(&ebpf.ProgramSpec{
			Name: "lessons_count", Type: ebpf.Kprobe, License: "MIT", Instructions: ins,
		})
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("witness: a BPF program cannot be loaded here: %w", err)
		}
		w.progs = append(w.progs, p)
	}
	return w, nil
}

// counter is the BPF program of probe i: add one (or, for arg, the
// call's arg-th argument) to the count of (the calling task's cgroup, i)
// when that key is there, that is, when the cgroup is a watched run's;
// other processes are not counted.
func counter(m *ebpf.Map, i uint64, arg int) (asm.Instructions, error) {
	add := asm.Instructions{asm.Mov.Imm(asm.R1, 1)}
	if arg != 0 {
		off, err := argOffset(arg)
		if err != nil {
			return nil, err
		}
		add = asm.Instructions{asm.LoadMem(asm.R1, asm.R6, off, asm.DWord)}
	}
	ins := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1), // the registers at the call
		asm.FnGetCurrentCgroupId.Call(),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.Mov.Imm(asm.R1, int32(i)),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
	}
	ins = append(ins, add...)
	return append(ins,
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	), nil
}

// Close detaches every probe and frees the programs and the map.
func (w *Witness) Close() error {
	w.removing.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ls := range w.attached {
		for _, l := range ls {
			l.Close()
		}
	}
	w.attached = nil
	if w.parent != "" {
		os.Remove(w.parent)
	}
	for _, p := range w.progs {
		p.Close()
	}
	return w.counts.Close()
}

// Attach sets the probes whose Lib matches the file's name on file (a
// library a run maps), once per file. A probe none of whose symbols the
// file defines is left out, and Missing names it.
func (w *Witness) Attach(lib, file string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Once per file, whatever its name: a probe set twice on one
	// inode (a link's name and the file's) counts each call twice.
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	if _, ok := w.attached[file]; ok {
		return nil
	}
	if st, err := os.Stat(file); err == nil {
		if ino, ok := inode(st); ok {
			id := fmt.Sprintf("inode %d:%d", st.Sys().(*syscall.Stat_t).Dev, ino)
			if _, ok := w.attached[id]; ok {
				return nil
			}
			defer func() {
				if _, ok := w.attached[file]; ok {
					w.attached[id] = nil
				}
			}()
		}
	}
	ex, err := link.OpenExecutable(file)
	if err != nil {
		return fmt.Errorf("witness: %w", err)
	}
	offsets, err := entryOffsets(file)
	if err != nil {
		return fmt.Errorf("witness: %s: %w", file, err)
	}
	var ls []link.Link
	for i, p := range w.probes {
		if p.Lib != lib {
			continue
		}
		// Every definition of every name of the probe, each address once:
		// a name may have several versions at different addresses, and
		// several names one address (aliases).
		seen := map[uint64]bool{}
		for _, s := range p.Symbols {
			for _, off := range offsets[s] {
				if seen[off] {
					continue
				}
				seen[off] = true
				l, err := ex.Uprobe(s, w.progs[i], &link.UprobeOptions{Address: off})
				if err != nil {
					for _, l := range ls {
						l.Close()
					}
					return fmt.Errorf("witness: a uprobe on %s in %s: %w", s, file, err)
				}
				ls = append(ls, l)
			}
		}
		if len(seen) == 0 {
			w.missing[file] = append(w.missing[file], p.Name)
		}
	}
	w.attached[file] = ls
	return nil
}

// Missing are the probes for lib's file that it defines no symbol of.
func (w *Witness) Missing(file string) []string {
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.missing[file]...)
}

// entryOffsets maps each function the file defines (its dynamic and
// own symbol tables, every version) to the file offsets of its
// definitions, where a uprobe is set.
func entryOffsets(file string) (map[string][]uint64, error) {
	f, err := elf.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	out := map[string][]uint64{}
	for _, s := range append(syms, dyn...) {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF || s.Value == 0 {
			continue
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Vaddr <= s.Value && s.Value < p.Vaddr+p.Memsz {
				off := s.Value - p.Vaddr + p.Off
				dup := false
				for _, o := range out[s.Name] {
					dup = dup || o == off
				}
				if !dup {
					out[s.Name] = append(out[s.Name], off)
				}
				break
			}
		}
	}
	for _, offs := range out {
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	}
	return out, nil
}

// Watch is one run's counts, from Start to Counts.
type Watch struct {
	w      *Witness
	cgroup uint64
}

// Start counts the calls of the run in cgroup (its cgroup's id, the
// inode number of its folder), from now: call it before the run's
// program starts.
func (w *Witness) Start(cgroup uint64) (*Watch, error) {
	var zero uint64
	for i := range w.probes {
		if err := w.counts.Update(key{cgroup, uint64(i)}, zero, ebpf.UpdateAny); err != nil {
			return nil, fmt.Errorf("witness: watching a run: %w", err)
		}
	}
	return &Watch{w: w, cgroup: cgroup}, nil
}

// Counts ends the watch and returns each probe's count, by name (counts
// of probes with one name added).
func (c *Watch) Counts() map[string]uint64 {
	out := map[string]uint64{}
	for i, p := range c.w.probes {
		var v uint64
		k := key{c.cgroup, uint64(i)}
		if err := c.w.counts.Lookup(k, &v); err == nil {
			out[p.Name] += v
		}
		c.w.counts.Delete(k)
	}
	return out
}

// CgroupID is the id of the cgroup (version 2) whose folder is dir, as
// BPF's bpf_get_current_cgroup_id gives it.
func CgroupID(dir string) (uint64, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return 0, err
	}
	id, ok := inode(st)
	if !ok {
		return 0, errors.New("witness: no inode for " + dir)
	}
	return id, nil
}

// Offsets is every function file defines, with the file offsets of its
// definitions (each version, each alias): where Attach sets a probe.
func Offsets(file string) (map[string][]uint64, error) { return entryOffsets(file) }
