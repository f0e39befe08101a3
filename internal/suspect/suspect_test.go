package suspect

import (
	"fmt"
	"strings"
	"testing"
)

func TestScan(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // "kind@line"
	}{
		{"honest", "#include <cstdio>\nint run() {\n  cudaMalloc(&p, 16);\n  exit(0);\n}\n", nil},
		{"a program's main", "#include <cstdio>\nint main() {\n  cudaMalloc(&p, 16);\n}\n", []string{"a main of its own@2"}},
		{"the harness's main renamed", "#pragma once\n#define main harness_main\nint main(int c, char** v) { return 0; }\n", []string{"a main of its own@2"}},
		{"not a main", "int harness_main(); int domain(int); int x = domain (2) + harness_main();\n", nil},
		{"the record's path", "int run() {\n  const char* f = getenv(\"LESSONS_STATS\");\n}\n", []string{"the statistics library's environment@2"}},
		{"joined literals", "const char* f = getenv(\"LESSONS_\"\n   /* hide */ \"STATS\");\n", []string{"the statistics library's environment@1"}},
		{"a comment is not a use", "// do not call _exit or dlsym here\n/* LESSONS_STATS\n /proc/self */ int x;\n", nil},
		{"a quote in a character", "char q = '\"'; _exit(0); // \"\n", []string{"an exit without exit handlers@1"}},
		{"dlsym around the library", "#include <dlfcn.h>\nvoid* h = dlopen(\"libcudart.so\", RTLD_NOW);\nauto f = dlsym(h, \"cudaMalloc\");\n", []string{"dynamic loading@1"}},
		{"ELF in memory", "#include <elf.h>\nconst Elf64_Ehdr* e = (const Elf64_Ehdr*)at;\nif (memcmp(p, \"\\x7fELF\", 4) == 0) {}\n", []string{"ELF structures read in memory@1"}},
		{"ELF's magic", "\nif (memcmp(p, \"\\x7fELF\", 4) == 0 || *(int*)p == 0x464c457f) {}\n", []string{"ELF structures read in memory@2"}},
		{"not ELF", "int elf = 2; char self[4]; int p_load;\n", nil},
		{"proc self", "\nint fd = open(\"/proc/self/mem\", O_RDWR);\n", []string{"/proc@2", "code written at run time@2"}},
		{"a memfd", "int fd = memfd_create(\"x\", 0);\n", []string{"code written at run time@1"}},
		{"mapped executable", "\nvoid* m = mmap(0, n, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);\n", []string{"code written at run time@2"}},
		{"an executable stack", "asm(\".section .note.GNU-stack,\\\"x\\\",@progbits\");\n", []string{"code written at run time@1"}},
		{"a writable code section", "static char b[16] __attribute__((section(\".wx,\\\"awx\\\",@progbits #\")));\n", []string{"code written at run time@1"}},
		{"a persona", "personality(READ_IMPLIES_EXEC);\n", []string{"code written at run time@1"}},
		{"glibc's rseq area", "#include <sys/rseq.h>\nstruct rseq* rs = (struct rseq*)((char*)tp + __rseq_offset);\n", []string{"restartable sequences@1"}},
		{"an rseq area by ctypes", "\noff = ctypes.c_ptrdiff_t.in_dll(libc, \"__rseq_offset\").value\n", []string{"restartable sequences@2"}},
		{"not rseq", "int rseq_count = 0; int prseq = 1;\n", nil},
		{"not a persona", "int my_personality = 2;\n", nil},
		{"quick exits", "\n\nquick_exit(0);\n_Exit(1);\n", []string{"an exit without exit handlers@3"}},
		{"not an exit", "void my_exit(); int _exited; my_exit();\n", nil},
		{"a destructor", "__attribute__((destructor)) static void fix() {}\n", []string{"code run at exit@1"}},
		{"static runtime", "#pragma comment(lib, \"cudart_static\")\n", []string{"the static CUDA runtime@1"}},
		{"driver allocation", "CUdeviceptr d;\ncuMemAlloc_v2(&d, 1 << 24);\n", []string{"the driver API's allocations@2"}},
		{"entry point", "cudaGetDriverEntryPointByVersion(\"cuMemAlloc\", &f, 12000, 0, &q);\n", []string{"the driver API's allocations@1"}},
		{"patching", "mprotect(page, 4096, PROT_WRITE);\n", []string{"raw system calls@1"}},
		{"a system call instruction", "long r;\nasm volatile(\"syscall\" : \"=a\"(r) : \"a\"(3L), \"D\"(fd) : \"rcx\", \"r11\");\n", []string{"raw system calls@2"}},
		{"a naked function", "extern \"C\" __attribute__((naked)) void skip() {\n  __asm__ volatile(\"push %rbp\\n\\tjmp *to(%rip)\");\n}\n", []string{"control moved in assembly@1"}},
		{"a jump in inline assembly", "void f() {\n  asm volatile(\"lea 2f(%%rip), %0\\n\" : \"=r\"(a));\n}\n", []string{"control moved in assembly@2"}},
		{"a naked word is not an attribute", "int naked = 1; // naked\nconst char* s = \"naked eye\";\n", nil},
		{"PTX is not x86", "__device__ int lane() {\n  int l; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));\n  asm(\"ld.global.nc.f32 %0, [%1];\" : \"=f\"(x) : \"l\"(p)); return l;\n}\n", nil},
		{"not an instruction", "printf(\"the syscall failed\\n\");\nint syscalls = 0;\n", nil},
		{"an instruction in top-level assembly", "__asm__(\".text\\n\"\n  \"raw: mov %rdi, %rax\\n syscall\\n ret\\n\");\n", []string{"raw system calls@1"}},
		{"a raw clone", "long pid = raw(SYS_clone, SIGCHLD, 0);\n", []string{"a process of its own@1"}},
		{"a handler that steps the program", "void h(int, siginfo_t*, void* c) {\n  ((ucontext_t*)c)->uc_mcontext.gregs[REG_EFL] |= 0x100;\n}\n", []string{"registers changed in a signal handler@2"}},
		{"a launch by the driver", "cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, args, 0);\n", []string{"work the statistics library does not see@1"}},
		{"a kernel node by hand", "\ncudaGraphAddKernelNode(&node, g, NULL, 0, &p);\n", []string{"work the statistics library does not see@2"}},
		{"an instantiated graph updated", "cudaGraphExecUpdate(e, g, &info);\n", []string{"work the statistics library does not see@1"}},
		{"a graph by the driver", "cuGraphLaunch(e, s);\n", []string{"work the statistics library does not see@1"}},
		{"a graph captured", "cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); cudaGraphInstantiate(&e, g, 0); cudaGraphLaunch(e, s); cudaGraphKernelNodeGetParams(n, &p); cudaGraphExecKernelNodeSetParams(e, n, &p); cudaGraphAddMemAllocNode(&a, g, 0, 0, &m);\n", nil},
		{"a node's own arguments", "cudaGraphNodeGetParams(n, &np);\n*(int*)np.kernel.kernelParams[3] = k;\n", []string{"work the statistics library does not see@1"}},
		{"an executable graph's node set", "\ncudaGraphExecNodeSetParams(e, n, &np);\n", []string{"work the statistics library does not see@2"}},
		{"a node's arguments by the driver", "cuGraphKernelNodeGetParams_v2(n, &dp);\n", []string{"work the statistics library does not see@1"}},
		{"host functions the library follows", "cudaLaunchHostFunc(s, done, &flag);\ncudaStreamAddCallback(s, cb, 0, 0);\n", nil},
		{"a capture the library does not see", "cudaStreamBeginCaptureToGraph(s, g, NULL, NULL, 0, cudaStreamCaptureModeGlobal);\n", []string{"work the statistics library does not see@1"}},
		{"a stream drawn in by the driver", "\ndriver = cuStreamWaitEvent;\n", []string{"work the statistics library does not see@2"}},
		{"a host node read back", "cudaGraphHostNodeGetParams(n, &hp); hp.fn(hp.userData);\n", []string{"work the statistics library does not see@1"}},
		{"a 2D copy", "\ncudaMemcpy2D(d, p, s, p, w, 1, cudaMemcpyDeviceToDevice);\n", []string{"work the statistics library does not see@2"}},
		{"not unseen work", "cudaMemcpyAsync(d, s, n, k, st); cudaLaunchKernel(f, g, b, a, 0, st);\ncudaMemcpy2DAsync(d, p, s, p, w, 1, k, st); cudaLaunchKernelEx(&c, f, x);\n", nil},
		{"a host function the library follows", "cudaLaunchHostFunc(st, arrived, &slot);\n", nil},
		{"a child", "if (fork() == 0) work();\n", []string{"a process of its own@1"}},
		{"itself again by posix_spawnp", "\nposix_spawnp(&pid, argv[0], NULL, NULL, args, env);\n", []string{"a process of its own@2"}},
		{"itself again by execveat", "execveat(AT_FDCWD, argv[0], args, env, 0);\n", []string{"a process of its own@1"}},
		{"a fork without atfork handlers", "pid_t p = _Fork();\n", []string{"a process of its own@1"}},
		{"a spawn by pointer", "auto start = &pidfd_spawnp;\n", []string{"a process of its own@1"}},
		{"a second interpreter", "import subprocess\n", []string{"a process of its own@1"}},
		{"spawned workers", "\nimport multiprocessing as mp\n", []string{"a process of its own@2"}},
		{"not a spawn", "int posix_spawned = 0; my_execve_count++;\n", nil},
		{"another GPU", "int run() {\n  setenv(\"CUDA_VISIBLE_DEVICES\", \"0,1,2,3\", 1);\n", []string{"its own environment@2"}},
		{"under the sanitizer", "bool watched = getenv(\"CUDA_INJ\" \"ECTION64_PATH\") != 0;\n", []string{"its own environment@1"}},
		{"an environment wiped", "\nclearenv();\n", []string{"its own environment@2"}},
		{"several", "_exit(0);\n/* x */ dlsym(RTLD_NEXT, \"cudaFree\");\n", []string{"dynamic loading@2", "an exit without exit handlers@1"}},
		{"unterminated", "\"LESSONS_STATS", []string{"the statistics library's environment@1"}},
		{"a raw string that would open a comment", "const char* s = R\"(\" /*)\"; _exit(0); // */\n", []string{"an exit without exit handlers@1"}},
		{"a raw string with a delimiter", "auto s = u8R\"x(/* \" )\" )x\"; _exit(0);\n", []string{"an exit without exit handlers@1"}},
		{"joined in a directive", "#define KEY \"LESSONS_\" \"STATS\"\nint x;\n", []string{"the statistics library's environment@1"}},
		{"a // in a directive's string", "#define URL \"http://x\"\n_exit(0);\n", []string{"an exit without exit handlers@2"}},
		{"a comment going on past a backslash", "// no \\\n_exit(0);\nint y;\n", nil},
		{"the loaded objects walked", "\nint n = dl_iterate_phdr(visit, 0);\n", []string{"dynamic loading@2"}},
		{"memcpy in assembly", "#include <cstdio>\n__asm__(\".globl memcpy\\n\"\n  \"memcpy: jmp mine\\n\");\n", []string{"symbols defined in assembly@2", "control moved in assembly@2"}},
		{"weak in assembly", "asm(\".weak getenv\\ngetenv: ret\");\n", []string{"symbols defined in assembly@1"}},
		{"the profiler's hook", "extern \"C\" void __gmon_start__(void) {}\n", []string{"code run before main@1"}},
		{"an init array", "__attribute__((section(\".init_array\"))) void (*f)() = g;\n", []string{"code run before main@1"}},
		{"the environment by another name", "extern char** __environ;\n", []string{"its own environment@1"}},
		{"a member called globl", "s.globl = 1; x.weak;\n", nil},
		{"a name ending in R is no raw string", "int fooR = 1; auto s = fooR\"x\"; _exit(0);\n", []string{"an exit without exit handlers@1"}},
	} {
		var got []string
		for _, f := range Scan([]byte(tc.src)) {
			got = append(got, fmt.Sprintf("%s@%d", f.Kind.Name, f.Line))
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// graph-alloc's solution (a host function queued, a kernel node's
// parameters got) explains none of the ways to the node's own argument
// memory, nor the driver's launches: before round 24 the scan did not
// name cudaGraphNodeGetParams and cudaGraphExecNodeSetParams, and with
// cudaLaunchHostFunc in the kind (until the library followed host
// functions), the solution explained the whole kind for every
// submission.
func TestGraphNodeParamsNamed(t *testing.T) {
	solution := []byte("CHECK(cudaLaunchHostFunc(s, nap, nullptr));\nCHECK(cudaGraphKernelNodeGetParams(scale_node, &scale_params));\n")
	for _, student := range []string{
		"cudaLaunchHostFunc(s, nap, nullptr);\ncudaGraphNodeParams np;\ncudaGraphNodeGetParams(scale_node, &np);\n",
		"cudaLaunchHostFunc(s, nap, nullptr);\n\ncudaGraphExecNodeSetParams(step, scale_node, &np);\n",
		"cudaLaunchHostFunc(s, nap, nullptr);\nauto f = cuLaunchKernel;\n",
	} {
		got := Unexplained([]byte(student), solution)
		if len(got) != 1 || got[0].Kind.Name != "work the statistics library does not see" || got[0].Line < 2 {
			t.Errorf("Unexplained(%q) = %v", student, got)
		}
	}
}

func TestUnexplained(t *testing.T) {
	solution := []byte("CUmemGenericAllocationHandle h;\ncuMemCreate(&h, size, &prop, 0);\ncuMemMap(ptr, size, 0, h, 0);\n")
	student := []byte("cuMemCreate(&h, size, &prop, 0);\n_exit(0);\n")
	got := Unexplained(student, solution)
	if len(got) != 1 || got[0].Kind.Name != "an exit without exit handlers" || got[0].Line != 2 {
		t.Fatalf("Unexplained = %v", got)
	}
	if s := got[0].String(); !strings.Contains(s, "line 2 names _exit") || !strings.Contains(s, "exit handler") {
		t.Errorf("String() = %q", s)
	}
	if got := Unexplained(solution, solution); len(got) != 0 {
		t.Errorf("a solution explains itself: %v", got)
	}
}

// A header exercise (Day 76's pool_resource.h, included above the
// harness's main): a student's header that brings a main of its own, or
// renames the harness's, is marked; the solution's header has none.
func TestHeaderWithAMain(t *testing.T) {
	solution := []byte("#pragma once\nstruct pool { void* get(size_t n); };\n")
	for _, student := range []string{
		"#pragma once\nstruct pool {};\n#define main harness_main\nint main() { return 0; }\n",
		"#pragma once\nstruct pool {};\nint main(int argc, char** argv) { return 0; }\n#define main harness_main\n",
	} {
		got := Unexplained([]byte(student), solution)
		if len(got) != 1 || got[0].Kind.Name != "a main of its own" || got[0].Line != 3 {
			t.Errorf("Unexplained(%q) = %v", student, got)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{"_exit(0);", "\"LESSONS_\" \"STATS\"", "/* /proc/ */ '\"' \"a\\\"b\"", "// x\n\"", "'", "\"\\", "/*", "a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Count(src, "\n") + 1
		for _, x := range Scan([]byte(src)) {
			if x.Line < 1 || x.Line > lines {
				t.Fatalf("finding at line %d of %d: %v", x.Line, lines, x)
			}
		}
		if u := Unexplained([]byte(src), []byte(src)); len(u) != 0 {
			t.Fatalf("a source does not explain itself: %v", u)
		}
		code, at := flatten(src)
		if len(at) != len(code) {
			t.Fatalf("%d lines for %d bytes", len(at), len(code))
		}
	})
}
