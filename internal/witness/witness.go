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
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/features"
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
	// Behind probes the function behind each entry's slot too, and its
	// ways out (the CUDA driver's dispatch: exits.go). Only for entries
	// whose first transfer of control is through a slot to the function
	// that does their work alone: a helper that other functions call too
	// would be counted more often than the entry, an honest run failed.
	Behind bool
	// EntryOnly probes the entries' first instructions alone: for a
	// count kept for measuring, never compared (the driver's launches,
	// thousands a run), whose calls entered past it gain a program
	// nothing, each call costs one probe, not four.
	EntryOnly bool
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
	// progs are a program per probe and kind of site (siteKey), each
	// attached by a uprobe of its own at each address; or, where the kernel has uprobe_multi links
	// (Linux 6.6 on), multi: a program per argument read (0 for a
	// count), told its probe by the link's cookie, so that a file's
	// probes are a link or two, set and taken off in one call each.
	progs []*ebpf.Program
	multi map[int]*ebpf.Program

	// faults counts the fault signals a run's threads catch (faults.go),
	// or is nil, and faultsOff says why.
	faults    *ebpf.Program
	faultLink link.Link
	faultsOff string
	// memWrites counts the writes through /proc/PID/mem (memwrites.go),
	// or is nil, and memWritesOff says why.
	memWrites    *ebpf.Program
	memLink      link.Link
	memLinkExit  link.Link // the system calls' way's second link (sys_exit)
	memWritesOff string
	memWritesWay string
	// written counts executable mappings of files written during a run
	// (written.go), or is nil, and writtenOff says why.
	written     *ebpf.Program
	writtenLink link.Link
	execLink    link.Link // watchExecs'
	clockLink   link.Link // watchClock's
	writtenOff  string

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
		MaxEntries: uint32(maxRuns * siteKinds * (len(probes) + 2)),
	})
	if err != nil {
		return nil, fmt.Errorf("witness: a BPF map cannot be made here (root, or CAP_BPF and CAP_PERFMON, are needed): %w", err)
	}
	w := &Witness{probes: probes, counts: m, attached: map[string][]link.Link{}, missing: map[string][]string{}}
	if err := w.watchFaults(); err != nil {
		w.faultsOff = err.Error()
	}
	if err := w.watchMemWrites(); err != nil {
		w.memWritesOff = err.Error()
	}
	if err := w.watchWritten(); err != nil {
		w.writtenOff = err.Error()
	}
	if !noMulti && features.HaveBPFLinkUprobeMulti() == nil {
		w.multi = map[int]*ebpf.Program{}
		for _, pr := range probes {
			if w.multi[pr.Arg] != nil {
				continue
			}
			ins, err := counter(m, cookie, pr.Arg)
			if err != nil {
				w.Close()
				return nil, err
			}
			p, err := ebpf.NewProgram(&ebpf.ProgramSpec{
				Name: "lessons_count", Type: ebpf.Kprobe, AttachType: ebpf.AttachTraceUprobeMulti,
				License: "MIT", Instructions: ins,
			})
			if err != nil {
				w.Close()
				return nil, fmt.Errorf("witness: a BPF program cannot be loaded here: %w", err)
			}
			w.multi[pr.Arg] = p
		}
		return w, nil
	}
	for i, pr := range probes {
		for k := range siteKinds {
			if pr.Arg != 0 && k != atEntry {
				w.progs = append(w.progs, nil)
				continue
			}
			ins, err := counter(m, siteKey(i, k), pr.Arg)
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
	}
	return w, nil
}

// noMulti makes Open use a uprobe per address even where uprobe_multi
// links are there (a test of the older kernels' path).
var noMulti = false

// cookie, as counter's probe, makes the program read its probe from the
// link's cookie for each address.
const cookie = ^uint64(0)

// counter is the BPF program of probe i: add one (or, for arg, the
// call's arg-th argument) to the count of (the calling task's cgroup, i)
// when that key is there, that is, when the cgroup is a watched run's;
// other processes are not counted. With i the cookie, the probe is the
// attachment's cookie.
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
	}
	if i == cookie {
		ins = append(ins,
			asm.Mov.Reg(asm.R1, asm.R6),
			asm.FnGetAttachCookie.Call(),
			asm.StoreMem(asm.RFP, -8, asm.R0, asm.DWord))
	} else {
		ins = append(ins,
			asm.Mov.Imm(asm.R1, int32(i)),
			asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord))
	}
	ins = append(ins,
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
	)
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
	// Each uprobe's detach waits for the kernel's grace period (about 25
	// ms on Linux 6.18): one after another, the few hundred probes of a
	// machine with several CUDA copies took 16 s at the end of a grade.
	// Detached together, the waits overlap.
	var all []link.Link
	for _, ls := range w.attached {
		all = append(all, ls...)
	}
	closeAll(all)
	w.attached = nil
	if w.parent != "" {
		os.Remove(w.parent)
	}
	for _, p := range w.progs {
		if p != nil {
			p.Close()
		}
	}
	for _, p := range w.multi {
		p.Close()
	}
	if w.faultLink != nil {
		w.faultLink.Close()
	}
	if w.memLink != nil {
		w.memLink.Close()
	}
	if w.memLinkExit != nil {
		w.memLinkExit.Close()
	}
	if w.memWrites != nil {
		w.memWrites.Close()
	}
	if w.writtenLink != nil {
		w.writtenLink.Close()
	}
	if w.execLink != nil {
		w.execLink.Close()
	}
	if w.clockLink != nil {
		w.clockLink.Close()
	}
	if w.written != nil {
		w.written.Close()
	}
	if w.faults != nil {
		w.faults.Close()
	}
	if w.counts == nil {
		return nil
	}
	return w.counts.Close()
}

// closeAll closes links at once, at most 256 at a time.
func closeAll(ls []link.Link) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 256)
	for _, l := range ls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			l.Close()
			<-sem
		}()
	}
	wg.Wait()
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
	if w.multi != nil {
		return w.attachMulti(lib, file, ex, offsets)
	}
	var ls []link.Link
	for _, st := range w.sites(lib, file, offsets) {
		l, err := ex.Uprobe(st.symbol, w.progs[siteKey(st.probe, st.kind)], &link.UprobeOptions{Address: st.off})
		if err != nil {
			closeAll(ls)
			return fmt.Errorf("witness: a uprobe on %s in %s: %w", st.symbol, file, err)
		}
		ls = append(ls, l)
	}
	w.attached[file] = ls
	return nil
}

// site is an address of file where probe counts: a definition of
// symbol, a way out of it, or the function behind it (kind).
type site struct {
	off    uint64
	probe  int
	kind   int
	symbol string
}

// siteKey is the counting map's key of probe's sites of kind.
func siteKey(probe, kind int) uint64 { return uint64(probe*siteKinds + kind) }

// sites are the addresses of lib's probes in file, in the probes' order:
// every definition of every name of a probe, each address once a probe
// (a name may have several versions at different addresses, and several
// names one address: aliases), with each way out of it and the function
// behind it and its ways out (exits.go). A probe that reads an argument
// is set on the entries alone. A probe none of whose names file defines
// is noted in missing.
func (w *Witness) sites(lib, file string, offsets map[string][]uint64) []site {
	im, done := openImage(file)
	defer done()
	shapes := map[uint64]shape{}
	var out []site
	for i, p := range w.probes {
		if p.Lib != lib {
			continue
		}
		seen := map[uint64]bool{}
		add := func(off uint64, kind int, s string) {
			if !seen[off] {
				seen[off] = true
				out = append(out, site{off, i, kind, s})
			}
		}
		for _, s := range p.Symbols {
			for _, off := range offsets[s] {
				add(off, atEntry, s)
				if im == nil || p.Arg != 0 || p.EntryOnly {
					continue
				}
				sh, ok := shapes[off]
				if !ok {
					sh = im.shapeAt(off)
					shapes[off] = sh
				}
				for _, x := range sh.exits {
					add(x, entryOut, s)
				}
				if sh.work != 0 && p.Behind {
					add(sh.work, atWork, s)
					for _, x := range sh.workExits {
						add(x, workOut, s)
					}
				}
			}
		}
		if len(seen) == 0 {
			w.missing[file] = append(w.missing[file], p.Name)
		}
	}
	return out
}

// attachMulti is Attach with uprobe_multi links: per argument read, a
// link of every address of lib's probes in file, each address's cookie
// its probe. A link holds an address once: where two probes count one
// address, the second is in a link of its own.
func (w *Witness) attachMulti(lib, file string, ex *link.Executable, offsets map[string][]uint64) error {
	byArg := map[int][]site{}
	for _, st := range w.sites(lib, file, offsets) {
		a := w.probes[st.probe].Arg
		byArg[a] = append(byArg[a], st)
	}
	var ls []link.Link
	for _, arg := range slices.Sorted(maps.Keys(byArg)) {
		for sites := byArg[arg]; len(sites) > 0; {
			var offs, cookies []uint64
			var rest []site
			in := map[uint64]bool{}
			for _, s := range sites {
				if in[s.off] {
					rest = append(rest, s)
					continue
				}
				in[s.off] = true
				offs, cookies = append(offs, s.off), append(cookies, siteKey(s.probe, s.kind))
			}
			l, err := ex.UprobeMulti(nil, w.multi[arg], &link.UprobeMultiOptions{Addresses: offs, Cookies: cookies})
			if err != nil {
				closeAll(ls)
				return fmt.Errorf("witness: uprobes on %d functions in %s: %w", len(offs), file, err)
			}
			ls = append(ls, l)
			sites = rest
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
	w         *Witness
	cgroup    uint64
	past      []Past
	sites     map[string][siteKinds]uint64
	faults    uint64
	signals   uint64
	memWrites uint64
	written   uint64
	clock     uint64
}

// Start counts the calls of the run in cgroup (its cgroup's id, the
// inode number of its folder), from now: call it before the run's
// program starts.
func (w *Witness) Start(cgroup uint64) (*Watch, error) {
	var zero uint64
	for i := range w.probes {
		for k := range siteKinds {
			if err := w.counts.Update(key{cgroup, siteKey(i, k)}, zero, ebpf.UpdateAny); err != nil {
				return nil, fmt.Errorf("witness: watching a run: %w", err)
			}
		}
	}
	for _, k := range []uint64{w.faultKey(), w.signalKey(), w.memWriteKey(), w.memWriteExitKey(), w.writtenKey(), w.clockKey()} {
		if err := w.counts.Update(key{cgroup, k}, zero, ebpf.UpdateAny); err != nil {
			return nil, fmt.Errorf("witness: watching a run: %w", err)
		}
	}
	start, offset := runStart()
	if err := w.counts.Update(key{cgroup, w.startKey()}, start, ebpf.UpdateAny); err != nil {
		return nil, fmt.Errorf("witness: watching a run: %w", err)
	}
	if offset != 0 {
		if err := w.counts.Update(key{cgroup, w.offsetKey()}, offset, ebpf.UpdateAny); err != nil {
			return nil, fmt.Errorf("witness: watching a run: %w", err)
		}
	}
	return &Watch{w: w, cgroup: cgroup}, nil
}

// Counts ends the watch and returns each probe's count, by name (counts
// of probes with one name added): the largest count of its kinds of
// site, for an honest call passes each once (its entry, one way out of
// it, the function behind it, one way out of that). Where some kind
// counted more than the entry, Past names the probe.
func (c *Watch) Counts() map[string]uint64 {
	out := map[string]uint64{}
	c.past, c.sites = nil, map[string][siteKinds]uint64{}
	c.faults, c.signals, c.memWrites, c.written, c.clock = 0, 0, 0, 0, 0
	var memExits, start uint64
	for k, v := range map[uint64]*uint64{c.w.faultKey(): &c.faults, c.w.signalKey(): &c.signals, c.w.memWriteKey(): &c.memWrites, c.w.memWriteExitKey(): &memExits, c.w.writtenKey(): &c.written, c.w.startKey(): &start, c.w.offsetKey(): &start, c.w.clockKey(): &c.clock} {
		c.w.counts.Lookup(key{c.cgroup, k}, v)
		c.w.counts.Delete(key{c.cgroup, k})
	}
	// The system calls' way sees each write at its entry and at its
	// exit (memwrites.go): the more of the two.
	c.memWrites = max(c.memWrites, memExits)
	for i, p := range c.w.probes {
		var v [siteKinds]uint64
		for kind := range siteKinds {
			k := key{c.cgroup, siteKey(i, kind)}
			c.w.counts.Lookup(k, &v[kind])
			c.w.counts.Delete(k)
		}
		out[p.Name] += slices.Max(v[:])
		s := c.sites[p.Name]
		for k := range v {
			s[k] += v[k]
		}
		c.sites[p.Name] = s
		if slices.Max(v[:]) > v[atEntry] {
			c.past = append(c.past, Past{Probe: p.Name, Lib: p.Lib, Counts: v})
		}
	}
	return out
}

// Past is a probe whose function was entered past its first instruction
// in a run: some kind of its sites counted more calls than its entry.
type Past struct {
	Probe, Lib string
	// Counts are the calls counted at each kind of site: the entry, the
	// ways out of it, the function behind it, the ways out of that.
	Counts [siteKinds]uint64
}

func (p Past) String() string {
	var parts []string
	for k, n := range p.Counts {
		parts = append(parts, fmt.Sprintf("%s %d", kindNames[k], n))
	}
	return p.Probe + ": " + strings.Join(parts, ", ")
}

// Past are the probes whose functions the run entered past their first
// instruction, once Counts has ended the watch.
func (c *Watch) Past() []Past { return c.past }

// Sites are the counts of each kind of site of each probe, by name, once
// Counts has ended the watch: the entries, the ways out of them, the
// functions behind them, the ways out of those.
func (c *Watch) Sites() map[string][4]uint64 { return c.sites }

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
