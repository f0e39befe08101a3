package exercise

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// interposed is a name the program defines and exports, of any symbol
// type or binding (a function, an IFUNC, a variable, a symbol with no
// type from top-level assembly, weak or not, versioned or not), that the
// statistics library lib or a library the program loads (the CUDA
// runtime, the C and C++ runtimes) imports, with its kind in words; or
// "". The loader looks a name up in the program first, so every such
// import would reach the program's definition: code of the program's
// that runs inside the library's record path, or inside a library's
// start-up before the statistics library takes its key. The one export
// that is not the program's own code is a copy relocation: a library's
// variable (stderr, std::cout) whose data the loader copies into the
// program, which the program could change through its address anyway.
func interposed(f *elf.File, prog, lib string) (name, kind string) {
	exports, _ := f.DynamicSymbols()
	copied := copyRelocated(f, exports)
	// A copy's aliases: the linker exports a copied variable's other
	// names at its address with no relocation of their own, in the
	// version of the library that defines them (environ and _environ
	// beside the __environ that a program naming environ has copied),
	// so that the library's own uses of them reach the copy. A name of
	// the program's own at that address has no such version.
	type place struct {
		section elf.SectionIndex
		value   uint64
	}
	copies := map[place]string{}
	for _, s := range exports {
		if copied[s.Name] && elf.ST_TYPE(s.Info) == elf.STT_OBJECT && s.Version != "" {
			copies[place{s.Section, s.Value}] = s.Version
		}
	}
	imports := runImports(f, prog, lib)
	for _, s := range exports {
		if s.Section == elf.SHN_UNDEF || !imports[s.Name] {
			continue
		}
		if v, ok := copies[place{s.Section, s.Value}]; elf.ST_TYPE(s.Info) == elf.STT_OBJECT && (copied[s.Name] || ok && s.Version == v) {
			continue
		}
		return s.Name, symbolKind(s)
	}
	return "", ""
}

func symbolKind(s elf.Symbol) string {
	kind := map[elf.SymType]string{
		elf.STT_NOTYPE: "a symbol with no type, as top-level assembly makes", elf.STT_FUNC: "a function",
		elf.STT_OBJECT: "a variable", elf.STT_GNU_IFUNC: "an IFUNC", elf.STT_TLS: "a thread-local variable",
	}[elf.ST_TYPE(s.Info)]
	if kind == "" {
		kind = "a symbol of type " + elf.ST_TYPE(s.Info).String()
	}
	if elf.ST_BIND(s.Info) == elf.STB_WEAK {
		kind += ", weak"
	}
	return kind
}

// gmonStart says whether the program defines __gmon_start__ (in its
// dynamic symbols or its own table): every shared object linked with
// crti.o calls it from its _init when it is defined, before the
// statistics library's constructor.
func gmonStart(f *elf.File) bool {
	for _, list := range []func() ([]elf.Symbol, error){f.DynamicSymbols, f.Symbols} {
		syms, _ := list()
		for _, s := range syms {
			if s.Name == "__gmon_start__" && s.Section != elf.SHN_UNDEF {
				return true
			}
		}
	}
	return false
}

// copyRelocated are the names of the program's dynamic symbols that a
// copy relocation fills (R_*_COPY).
func copyRelocated(f *elf.File, syms []elf.Symbol) map[string]bool {
	var copyType uint32
	switch f.Machine {
	case elf.EM_X86_64:
		copyType = uint32(elf.R_X86_64_COPY)
	case elf.EM_AARCH64:
		copyType = uint32(elf.R_AARCH64_COPY)
	default:
		return nil
	}
	out := map[string]bool{}
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_RELA || f.Class != elf.ELFCLASS64 {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			continue
		}
		for i := 0; i+24 <= len(data); i += 24 {
			info := f.ByteOrder.Uint64(data[i+8:])
			// DynamicSymbols leaves out the null symbol 0.
			if uint32(info) == copyType && info>>32 >= 1 && int(info>>32) <= len(syms) {
				out[syms[info>>32-1].Name] = true
			}
		}
	}
	return out
}

// floorImports are names the record's path and the C runtime's start
// rely on, held against a program's exports even where the libraries it
// loads cannot be found and read here.
var floorImports = []string{
	"memcpy", "memmove", "memset", "memcmp", "bcmp", "strlen", "strcmp", "strncmp", "strcpy", "strncpy",
	"getenv", "secure_getenv", "setenv", "unsetenv", "putenv", "clearenv", "environ", "__environ",
	"read", "write", "open", "openat", "close", "fstat", "fcntl", "dup", "dup2", "dup3", "pipe", "pipe2",
	"getpid", "syscall", "mmap", "mprotect", "malloc", "calloc", "realloc", "free", "abort", "atexit",
	"__cxa_atexit", "__cxa_finalize", "__libc_start_main", "__register_atfork", "pthread_atfork",
	"dlopen", "dlmopen", "dlclose", "dlsym", "dlvsym", "dladdr", "dl_iterate_phdr", "_r_debug", "clock_gettime", "getrlimit",
	"__tls_get_addr", "__errno_location", "_dl_find_object",
}

// runImports is every name imported by lib and by the shared objects prog
// needs (followed through their own needs), found where the loader looks
// (the program's run path, the system's library folders, CUDA's), with
// floorImports.
func runImports(f *elf.File, prog, lib string) map[string]bool {
	out := map[string]bool{}
	for _, n := range floorImports {
		out[n] = true
	}
	add := func(path string) {
		for n := range importsOf(path) {
			out[n] = true
		}
	}
	if lib != "" {
		add(lib)
	}
	dirs := searchDirs(f, prog)
	seen := map[string]bool{}
	queue, _ := f.ImportedLibraries()
	for len(queue) > 0 {
		soname := queue[0]
		queue = queue[1:]
		if seen[soname] {
			continue
		}
		seen[soname] = true
		path := findLibrary(soname, dirs)
		if path == "" {
			continue
		}
		add(path)
		queue = append(queue, neededOf(path)...)
	}
	return out
}

// searchDirs are the folders a needed library is looked for in: the
// program's run path ($ORIGIN its folder), then the system's and CUDA's.
func searchDirs(f *elf.File, prog string) []string {
	var dirs []string
	for _, tag := range []elf.DynTag{elf.DT_RUNPATH, elf.DT_RPATH} {
		paths, _ := f.DynString(tag)
		for _, p := range paths {
			for _, d := range strings.Split(p, ":") {
				d = strings.ReplaceAll(strings.ReplaceAll(d, "${ORIGIN}", "$ORIGIN"), "$ORIGIN", filepath.Dir(prog))
				if d != "" {
					dirs = append(dirs, d)
				}
			}
		}
	}
	dirs = append(dirs, systemLibraryDirs()...)
	return dirs
}

var systemDirs struct {
	once sync.Once
	dirs []string
}

// systemLibraryDirs are the folders of /etc/ld.so.conf (and the files it
// includes), the multiarch and plain library folders, and CUDA's.
func systemLibraryDirs() []string {
	systemDirs.once.Do(func() {
		var dirs []string
		confs, _ := filepath.Glob("/etc/ld.so.conf.d/*.conf")
		for _, c := range append([]string{"/etc/ld.so.conf"}, confs...) {
			data, err := os.ReadFile(c)
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(data), "\n") {
				line = strings.TrimSpace(line)
				if strings.HasPrefix(line, "/") {
					dirs = append(dirs, line)
				}
			}
		}
		dirs = append(dirs, "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
			"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
			"/usr/local/cuda/targets/sbsa-linux/lib", "/usr/local/nvidia/lib64", "/usr/lib/x86_64-linux-gnu/nvidia/current")
		systemDirs.dirs = dirs
	})
	return systemDirs.dirs
}

func findLibrary(soname string, dirs []string) string {
	if strings.Contains(soname, "/") {
		return soname
	}
	for _, d := range dirs {
		p := filepath.Join(d, soname)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// libInfo is what one shared object imports and needs, read once per
// file (by its path, size and time) for every program graded.
type libInfo struct {
	imports map[string]bool
	needed  []string
}

var libCache sync.Map // key: path, size, mtime → *libInfo

func readLibrary(path string) *libInfo {
	st, err := os.Stat(path)
	if err != nil {
		return &libInfo{}
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", path, st.Size(), st.ModTime().UnixNano())
	if v, ok := libCache.Load(key); ok {
		return v.(*libInfo)
	}
	info := &libInfo{imports: map[string]bool{}}
	if f, err := elf.Open(path); err == nil {
		syms, _ := f.DynamicSymbols()
		for _, s := range syms {
			if s.Section == elf.SHN_UNDEF && s.Name != "" {
				info.imports[s.Name] = true
			}
		}
		info.needed, _ = f.ImportedLibraries()
		f.Close()
	}
	libCache.Store(key, info)
	return info
}

func importsOf(path string) map[string]bool { return readLibrary(path).imports }
func neededOf(path string) []string         { return readLibrary(path).needed }

// writableCode says how the program would have code it can write from
// its first instruction, with no system call the sandbox could refuse:
// a segment the kernel maps writable and executable (a section made
// "awx" in assembly, a linker script, ld -N), or an executable stack
// (PT_GNU_STACK with PF_X, from an object that asks for one, -z
// execstack; or no PT_GNU_STACK at all, which the C library reads as
// one). The sandbox's W^X rule sees only the calls made after exec.
// It returns "" for a program built as nvcc and the C++ toolchain build
// one.
func writableCode(f *elf.File) string {
	stack := false
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			if p.Flags&elf.PF_W != 0 && p.Flags&elf.PF_X != 0 {
				return "a segment both writable and executable"
			}
		case elf.PT_GNU_STACK:
			stack = true
			if p.Flags&elf.PF_X != 0 {
				return "an executable stack"
			}
		}
	}
	if !stack && (f.Type == elf.ET_EXEC || f.Type == elf.ET_DYN) {
		return "no PT_GNU_STACK header, which makes its stack executable"
	}
	return ""
}
