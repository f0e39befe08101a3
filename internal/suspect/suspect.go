// Package suspect finds, in a CUDA or C++ source, what can reach around
// the statistics library or the grader's view of a run: the library's
// environment, dynamic loading (dlsym of the real runtime), /proc/self,
// an exit that skips the exit handlers, a static runtime, the driver
// API's own allocations, raw system calls. None of it is wrong in itself,
// so a finding is for an instructor to look at, never a failure; and what
// the exercise's own solution uses is not a finding at all.
package suspect

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cudalessons/lessons/internal/clex"
)

// Kind is a family of things a source can name.
type Kind struct {
	Name string
	// Why says what it can do to the grade, in words.
	Why string
	re  *regexp.Regexp
}

// Kinds are what Scan looks for, in the order it reports them.
var Kinds = []*Kind{
	{Name: "the statistics library's environment", re: regexp.MustCompile(`\bLESSONS_[A-Z0-9_]*`),
		Why: "a program that reads LESSONS_STATS can find and rewrite its own statistics record"},
	{Name: "dynamic loading", re: regexp.MustCompile(`\b(dlopen|dlmopen|dlsym|dlvsym|dladdr|dlinfo|dl_iterate_phdr|_r_debug|link_map|RTLD_NEXT|RTLD_DEFAULT|LD_PRELOAD)\b|dlfcn\.h|\blibcudart\.so|\blibcuda\.so`),
		Why: "dlsym of the real runtime calls CUDA around the statistics library, which then counts nothing"},
	{Name: "ELF structures read in memory", re: regexp.MustCompile(`\belf\.h\b|\b(Elf(32|64)_\w+|ElfW|ELFMAG\d?|SELFMAG|PT_LOAD|PT_DYNAMIC|DT_SYMTAB|DT_STRTAB|DT_GNU_HASH|DT_DEBUG|e_phoff|p_vaddr|_DYNAMIC)\b|\\(x7f|177)ELF|0x464c457f`),
		Why: "a program that reads a library's headers in its own memory (found from a function's address) finds the statistics library's data and rewrites its record"},
	{Name: "/proc", re: regexp.MustCompile(`/proc/`),
		Why: "/proc/self/maps and /proc/self/mem reach the statistics library's memory"},
	{Name: "an exit without exit handlers", re: regexp.MustCompile(`\b(_exit|_Exit|quick_exit|exit_group|SYS_exit|SYS_exit_group|__NR_exit|__NR_exit_group)\b`),
		Why: "it skips the exit handler that writes the statistics record's last figures"},
	{Name: "code run at exit", re: regexp.MustCompile(`\b(atexit|at_quick_exit|on_exit)\b|__attribute__\s*\(\(\s*(destructor|constructor)`),
		Why: "code of the program's own that runs after main can rewrite the record"},
	{Name: "code run before main", re: regexp.MustCompile(`\b__gmon_start__\b|\.(pre)?init_array\b|\b_init\s*\(`),
		Why: "code that runs while libraries start (__gmon_start__, .init_array, .preinit_array) runs before the statistics library takes its key"},
	{Name: "a main of its own", re: regexp.MustCompile(`#\s*(define|undef)\s+main\b|\bmain\s*\(`),
		Why: "a header that defines main, or renames the harness's (#define main), runs its own program in place of the harness's, printing what the checks expect"},
	{Name: "symbols defined in assembly", re: regexp.MustCompile(`\.(globl|global|weak|weakref|symver|set|equ)\s+[A-Za-z_.$]`),
		Why: "a global symbol defined in top-level assembly takes the place of a library's function (memcpy, getenv) for every library that calls it"},
	{Name: "the static CUDA runtime", re: regexp.MustCompile(`\bcudart_static\b|-cudart\s*=?\s*static\b`),
		Why: "a static runtime is not the one the statistics library intercepts"},
	{Name: "the driver API's allocations", re: regexp.MustCompile(`\bcu(MemAlloc\w*|MemCreate|MemMap|MemAddressReserve|MemPoolCreate|MemHostAlloc|GetProcAddress\w*)\b|\bcudaGetDriverEntryPoint\w*`),
		Why: "memory taken through the driver API, or a function found by address, passes the runtime the statistics library counts"},
	{Name: "raw system calls", re: regexp.MustCompile(`\b(syscall|mprotect|ptrace|process_vm_writev)\s*\(|\b(asm|__asm__|__asm)\b[^;]*"[^"]*\b(syscall|sysenter|svc\s+#?0|int\s+\$?0x80)\b`),
		Why: "a system call of its own, or a page made writable, can patch the statistics library in memory"},
	{Name: "control moved in assembly", re: regexp.MustCompile(`__attribute__\s*\(\(\s*(__)?naked|\bgnu::naked\b|\b(asm|__asm__|__asm)\b[^;]*"[^"]*\b(jmp|ljmp|jmpq|push[qlw]?|pop[qlw]?|lea[qlw]?)\b`),
		Why: "host assembly that does a library function's first instruction and jumps to its second (a naked function) calls CUDA past the statistics library's hook and the outside witness's probe alike, with no code written, so the sandbox's write-exec rule does not stop it"},
	{Name: "code written at run time", re: regexp.MustCompile(`\b(memfd_create|memfd_secret|userfaultfd|shmat|SHM_EXEC|personality|READ_IMPLIES_EXEC|PROT_EXEC|mremap|MAP_FIXED\w*)\b|/proc/self/mem|\.note\.GNU-stack|\\?"[a-z]*x[a-z]*\\?"\s*,\s*@progbits|execstack`),
		Why: "code the program writes after it starts (a memfd, shared memory or a file mapped executable, /proc/self/mem, an executable stack) can patch the statistics library; the grading sandbox refuses each, a student's own check does not"},
	{Name: "its own environment", re: regexp.MustCompile(`\b(setenv|putenv|unsetenv|clearenv|_{0,2}environ|CUDA_VISIBLE_DEVICES|CUDA_INJECTION\w*)\b`),
		Why: "a program that changes its environment before CUDA starts reaches GPUs other than the one it was given (CUDA_VISIBLE_DEVICES), and one that looks for compute-sanitizer's (CUDA_INJECTION64_PATH) can behave well only under it"},
	{Name: "a process of its own", re: regexp.MustCompile(`\b(fork|vfork|_Fork|system|popen|clone)\s*\(|\b(execve|execveat|execv|execvp|execvpe|execl|execlp|execle|fexecve|posix_spawnp?|pidfd_spawnp?|subprocess|multiprocessing)\b|\b(SYS|__NR)_(clone3?|fork|vfork)\b`),
		Why: "a second program started by it runs without the statistics library's record of the first"},
	{Name: "restartable sequences", re: regexp.MustCompile(`\b(rseq|rseq_cs|__rseq_offset|__rseq_size|__rseq_flags|RSEQ_\w+|SYS_rseq|__NR_rseq)\b|\brseq\.h\b`),
		Why: "a restartable sequence's critical section over CUDA's code lets the kernel take a thread out of a call before the statistics library counts it; every judged run, a student's own check included, has none (glibc's are off, the program's refused)"},
	{Name: "registers changed in a signal handler", re: regexp.MustCompile(`\b(uc_mcontext|REG_(RIP|EIP|EFL|RAX|RDI|RSI|RDX|RSP)|__ctx\s*\(\s*(rip|eflags|pc))\b`),
		Why: "a handler that changes the registers it returns to (the trap flag set: the program steps itself one instruction at a time) steers the statistics library's code past its checks without writing memory"},
	{Name: "work the statistics library does not see", re: regexp.MustCompile(`\bcuda(Memcpy2D|Memset2D|Memcpy2D(To|From|Array)\w*|(Memcpy|Memset)3D\w*|Memcpy(To|From)(Symbol|Array)\w*|MemcpyBatch\w*|LaunchCooperativeKernelMultiDevice)\b|\bcu(Launch\w*|Memcpy\w*|Memset\w*|StreamWaitEvent\w*|EventRecord\w*|Graph(Launch|Add\w*|ExecUpdate\w*|Exec\w*SetParams\w*|\w*Node(Get|Set)Params\w*))\b|\bcudaGraph(Add(Kernel|Memcpy|Memset)?Node\w*|ExecUpdate|ExecNodeSetParams|Node(Get|Set)Params|HostNodeGetParams)\b|\bcudaStreamBeginCaptureToGraph\b`),
		Why: "work queued through a CUDA function the statistics library does not hook (a 3D copy, a 2D one but on a stream, a copy to a symbol, the driver's launches, copies, memsets and graphs), or a graph built by hand (the library judges its kernel, copy, memset and event nodes at each launch, but not cudaGraphExecNodeSetParams, the driver's graph calls or the bodies of conditional nodes), may be judged for no race, no use after free and no copy past the end; and cudaGraphNodeGetParams hands out a kernel node's own argument memory, which cudaGraphKernelNodeGetParams keeps out of the program's reach; a stream drawn into a capture by the driver's wait or by cudaStreamBeginCaptureToGraph is not known to capture, and a host node read back (cudaGraphHostNodeGetParams) hands out the library's own host-function wrapper"},
}

// Finding is one thing a source names, at its first place.
type Finding struct {
	Kind *Kind
	Line int
	// Text is what was found ("_exit", "/proc/").
	Text string
}

func (f Finding) String() string {
	return fmt.Sprintf("line %d names %s (%s): %s", f.Line, strings.TrimSpace(f.Text), f.Kind.Name, f.Kind.Why)
}

// Scan lists, for each kind, the first place src names it. Comments do
// not count; string literals do, adjacent ones joined as the compiler
// joins them ("LESSONS_" "STATS").
func Scan(src []byte) []Finding {
	code, lines := flatten(string(src))
	var out []Finding
	for _, k := range Kinds {
		if loc := k.re.FindStringIndex(code); loc != nil {
			out = append(out, Finding{Kind: k, Line: lines[loc[0]], Text: code[loc[0]:loc[1]]})
		}
	}
	return out
}

// Unexplained are the findings of src whose kind none of the reference
// sources (the exercise's solution and the files it gives) names: what a
// submission reaches for that the exercise does not need.
func Unexplained(src []byte, reference ...[]byte) []Finding {
	return UnexplainedBy(src, Known(reference...))
}

// Known is the kinds of finding the reference sources name: scanned once
// for a class, where every student's file is held against them.
func Known(reference ...[]byte) []*Kind {
	var known []*Kind
	for _, r := range reference {
		for _, f := range Scan(r) {
			known = append(known, f.Kind)
		}
	}
	return known
}

// UnexplainedBy is Unexplained with the reference's kinds already known.
func UnexplainedBy(src []byte, known []*Kind) []Finding {
	var out []Finding
	for _, f := range Scan(src) {
		if !slices.Contains(known, f.Kind) {
			out = append(out, f)
		}
	}
	return out
}

// flatten is src without its comments (each one blank), with adjacent
// string literals joined into one, and, for each byte of what it
// returns, the line of src it came from.
func flatten(src string) (string, []int) {
	var b []byte
	var lines []int
	line := 1
	emit := func(s string) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == '\n' {
				line++
				c = ' '
			}
			b = append(b, c)
			lines = append(lines, line)
		}
	}
	// open is the index in b of the closing quote of the last string
	// literal, while only blanks and comments have followed it.
	open := -1
	code := func(s string) {
		if strings.TrimSpace(s) != "" {
			open = -1
		}
		emit(s)
	}
	pos := 0
	for _, sp := range clex.Spans(src) {
		code(src[pos:sp.Start])
		switch sp.Kind {
		case clex.Comment:
			line += strings.Count(src[sp.Start:sp.End], "\n")
			emit(" ")
		case clex.Char:
			// '"' opens no string
			open = -1
			emit(src[sp.Start:sp.End])
		case clex.String:
			if open >= 0 {
				// "abc" "def": go on inside the same literal
				b, lines = b[:open], lines[:open]
			} else {
				emit(`"`)
			}
			emit(src[sp.BodyStart:sp.BodyEnd])
			open = len(b)
			emit(`"`)
		}
		pos = sp.End
	}
	code(src[pos:])
	return string(b), lines
}
