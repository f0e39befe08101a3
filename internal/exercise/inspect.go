package exercise

import (
	"debug/elf"
	"strings"
)

// inspect reads a built program (without running it) for ways around the
// statistics library that the library cannot see from inside: code that
// runs before its constructor (which could read the run's key first), and
// a CUDA runtime of its own. It says why the program's record could not
// be trusted, or "". A program that is not ELF (a fake toolchain's
// script) has nothing to inspect. cacheDir, when not "", keeps what is
// read of the CUDA libraries between runs.
func inspect(prog, lib, cacheDir string) string {
	f, err := elf.Open(prog)
	if err != nil {
		return ""
	}
	defer f.Close()
	if gmonStart(f) {
		return "the program defines __gmon_start__, which the start-up code of every library calls before the statistics library starts, where it could take the record's key and pipe; remove it (it is the profiler's hook)"
	}
	if name, kind := interposed(f, prog, lib); name != "" {
		return "the program defines " + name + " (" + kind + "), a name the statistics library, the CUDA runtime or the C and C++ runtimes call: their calls reach the program's own " + name + " (the program comes first in the loader's order), which could take the record's key or change the record before it is signed; leave " + name + " to its library"
	}
	if how := writableCode(f); how != "" {
		return "the program has " + how + ": code it can write and run, in its own memory or the statistics library's, without a call the sandbox refuses; build it without -z execstack and without sections that are both writable and executable"
	}
	if s := f.Section(".preinit_array"); s != nil && s.Size > 0 {
		return "the program runs code before the statistics library starts (.preinit_array), where it could take the record's key"
	}
	if ifuncs(f) {
		return "the program runs code while it is being loaded (an IFUNC resolver), before the statistics library starts, where it could take the record's key"
	}
	if so := embeddedLibrary(f, prog, cacheDir); so != "" {
		return "the program's code holds a copy of " + so + "'s code (an .incbin of its file, or its bytes in an executable section): a copy's calls reach no hook of the statistics library and no probe of the outside witness; build the program from its own code, with CUDA's shared runtime"
	}
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC && staticRuntime[s.Name] {
			return "the program carries its own CUDA runtime (built with -cudart static or libcudart_static), whose calls the statistics library cannot see: build it with the shared runtime"
		}
	}
	dyn, _ := f.DynamicSymbols()
	for _, s := range dyn {
		if s.Section == elf.SHN_UNDEF && (strings.HasPrefix(s.Name, "cu") || strings.HasPrefix(s.Name, "__cuda")) &&
			(strings.HasSuffix(s.Name, "_ptsz") || strings.HasSuffix(s.Name, "_ptds")) {
			return "the program calls the per-thread default stream's CUDA functions (" + s.Name + ", from CUDA_API_PER_THREAD_DEFAULT_STREAM or --default-stream per-thread), which the statistics library does not follow"
		}
	}
	return ""
}

// staticRuntime are functions every CUDA runtime defines: a program that
// defines one itself linked a runtime in.
var staticRuntime = map[string]bool{
	"cudaMalloc": true, "cudaLaunchKernel": true, "cudaGetDeviceCount": true,
	"__cudaRegisterFatBinary": true, "cudaMallocAsync": true, "cudaDeviceSynchronize": true,
}

// ifuncs reports whether the program has relocations resolved by its own
// code at load time (IRELATIVE), which run before any constructor.
func ifuncs(f *elf.File) bool {
	var irelative uint32
	switch f.Machine {
	case elf.EM_X86_64:
		irelative = uint32(elf.R_X86_64_IRELATIVE)
	case elf.EM_AARCH64:
		irelative = uint32(elf.R_AARCH64_IRELATIVE)
	default:
		return false
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA || f.Class != elf.ELFCLASS64 {
			continue
		}
		data, err := s.Data()
		if err != nil {
			continue
		}
		for i := 0; i+24 <= len(data); i += 24 {
			if uint32(f.ByteOrder.Uint64(data[i+8:])) == irelative {
				return true
			}
		}
	}
	return false
}
