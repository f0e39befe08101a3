package exercise

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/machine"
)

// The test binary is the sandbox's helper too (NewSandbox copies it).
// fakeSanitizer is a compute-sanitizer that finds one error in whatever
// it runs. Like the real one, it opens its log at the start without
// O_CLOEXEC (strace: openat(..., O_WRONLY|O_CREAT|O_TRUNC) = 3) and
// writes the summary when its target has ended.
const fakeSanitizer = `#!/bin/sh
log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --log-file) log="$2"; shift 2 ;;
    --tool|--print-limit|--leak-check|--track-stream-ordered-races|--target-processes) shift 2 ;;
    *) break ;;
  esac
done
exec 3>"$log"
echo "========= COMPUTE-SANITIZER" >&3
echo "========= Invalid __global__ write of size 4 bytes" >&3
"$@"
echo "========= ERROR SUMMARY: 1 error" >&3
`

// sandboxToolkit is a fake toolkit (nvcc, compute-sanitizer) in a folder
// that the workers' users may read, and a sandbox to grade in.
func sandboxToolkit(t *testing.T, nvccScript string) (*Toolkit, *Sandbox, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the sanitizer runs in the sandbox only with a user per worker (root)")
	}
	t.Setenv("LESSONS_SANITIZER", "none")
	base, err := os.MkdirTemp("", "exercise-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	bin := filepath.Join(base, "cuda", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	nvcc := filepath.Join(bin, "nvcc")
	os.WriteFile(nvcc, []byte(nvccScript), 0o755)
	cs := filepath.Join(bin, "compute-sanitizer")
	os.WriteFile(cs, []byte(fakeSanitizer), 0o755)
	tk := NewToolkit(buildcache.Compiler{Path: nvcc, Version: "13.0.88", Arch: "sm_90"}, &buildcache.Cache{Dir: filepath.Join(base, "cache"), MaxBytes: 1 << 30})
	tk.Sanitizer = cs
	// Readable as /usr/local/cuda is (SystemRead): only the course's
	// folders are the sandbox's to keep out of reach.
	t.Setenv("LESSONS_SANDBOX_READ", filepath.Join(base, "cuda"))
	s, err := TempSandbox("exercise-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return tk, s, base
}

// A program run under compute-sanitizer cannot forge the tool's log: not
// by replacing the file (it used to be in the run's folder), not through
// the descriptor the tool left open, not through the tool's /proc.
func TestSanitizerLogOutOfReach(t *testing.T) {
	tk, s, _ := sandboxToolkit(t, fakeNVCC)
	forged := "========= ERROR SUMMARY: 0 errors"
	src := strings.Join([]string{
		"// fake: log=$(tr '\\0' '\\n' < /proc/$PPID/cmdline | sed -n '/^--log-file$/{n;p;}')",
		"// fake: [ -n \"$log\" ] || exit 0",
		"// fake: rm -f \"$log\" 2>/dev/null; { echo '" + forged + "' > \"$log\"; } 2>/dev/null && echo forged by path",
		"// fake: for fd in 3 4 5 6 7 8 9; do { echo '" + forged + "' >&$fd; } 2>/dev/null && echo forged by descriptor $fd; done",
		"// fake: { echo '" + forged + "' > /proc/$PPID/fd/3; } 2>/dev/null && echo forged through /proc",
		"// fake: exit 0",
	}, "\n") + "\n"
	v, err := Check(context.Background(), tk, s, job(t, spec(t, "[[check]]\nsanitizer = \"memcheck\"\n"), "x.cu", src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Results) != 1 || v.Results[0].Pass || !strings.HasPrefix(v.Results[0].Got, "1 error") {
		t.Errorf("the sanitizer's one error should stand: %+v", v.Results)
	}
}

// An honest run's log still reaches the grader through the new path.
func TestSanitizerLogReadBack(t *testing.T) {
	tk, s, _ := sandboxToolkit(t, fakeNVCC)
	v, err := Check(context.Background(), tk, s, job(t, spec(t, "[[check]]\nsanitizer = \"memcheck\"\n"), "x.cu", "// fake: echo hello\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Results) != 1 || v.Results[0].Skipped || !strings.Contains(v.Results[0].Got, "1 error; the first: Invalid __global__ write") {
		t.Errorf("the log should be read: %+v", v.Results)
	}
}

// includeNVCC is fakeNVCC that also puts into the program the files that
// "// include: PATH" lines name, as the preprocessor does an #include.
var includeNVCC = strings.Replace(fakeNVCC, "chmod +x \"$out\"", `for s in $srcs; do
  for f in $(sed -n 's|^// include: ||p' "$s"); do
    cat "$f" > /dev/null || exit 1
    sed 's|^|echo |' "$f" >> "$out"
  done
done
chmod +x "$out"`, 1)

// A build that reaches nvcc through a link in a course's folder reads
// nothing of that course: the toolkit's folder the sandbox opens is
// nvcc's real one, not the one above the link.
func TestBuildThroughLinkedNVCC(t *testing.T) {
	for _, kind := range []string{"absolute", "relative"} {
		t.Run(kind, func(t *testing.T) {
			tk, s, base := sandboxToolkit(t, includeNVCC)
			course := filepath.Join(base, "course")
			os.MkdirAll(filepath.Join(course, "solutions"), 0o755)
			os.MkdirAll(filepath.Join(course, "bin"), 0o755)
			secret := filepath.Join(course, "solutions", "x.toml")
			os.WriteFile(secret, []byte("SECRET-EXPECTED-LINE\n"), 0o644)
			target := tk.NVCC.Path
			if kind == "relative" {
				target = "../../cuda/bin/nvcc"
			}
			link := filepath.Join(course, "bin", "nvcc")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			tk.NVCC.Path = link
			v, err := Check(context.Background(), tk, s, job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", "// fake: echo hello\n// include: "+secret+"\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(v.Output, "SECRET") || v.Passed() {
				t.Errorf("the build read the course's secret spec: %+v %q", v.Results, v.Output)
			}
		})
	}
}

// plantedCU writes one int past the end of its allocation (memcheck's to
// find), then tries every way to forge compute-sanitizer's log: by path,
// through the tool's descriptors in /proc, through a descriptor it was
// left. It says what it did; "WROTE" is a door open.
const plantedCU = `#include <cstdio>
#include <cstring>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

__global__ void fill(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) a[i] = i; // PLANTED: i == n is one past the end
}

static const char forged[] = "========= ERROR SUMMARY: 0 errors\n";

static void tryWrite(const char *how, const char *path, int fd) {
  if (fd < 0) { printf("forge %s %s: %s\n", how, path, strerror(errno)); return; }
  ssize_t w = write(fd, forged, sizeof forged - 1);
  printf("forge %s %s: %s\n", how, path, w > 0 ? "WROTE" : strerror(errno));
  close(fd);
}

static void forge() {
  DIR *d = opendir("/proc");
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char p[512], buf[8192];
    snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
    int fd = open(p, O_RDONLY);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = 0;
    for (char *s = buf; s < buf + n; s += strlen(s) + 1) {
      if (strcmp(s, "--log-file") != 0 || s + strlen(s) + 1 >= buf + n) continue;
      const char *log = s + strlen(s) + 1;
      unlink(log);
      tryWrite("by path", log, open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644));
      for (int k = 0; k < 256; k++) {
        char t[512];
        snprintf(p, sizeof p, "/proc/%s/fd/%d", e->d_name, k);
        ssize_t m = readlink(p, t, sizeof t - 1);
        if (m <= 0) continue;
        t[m] = 0;
        if (strstr(t, ".log")) tryWrite("through", p, open(p, O_WRONLY));
      }
    }
  }
  if (d) closedir(d);
  for (int fd = 3; fd < 256; fd++) {
    char p[64], t[512];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t m = readlink(p, t, sizeof t - 1);
    if (m <= 0) continue;
    t[m] = 0;
    if (strstr(t, ".log")) tryWrite("by inherited descriptor", t, dup(fd));
  }
}

int main() {
  const int n = 256;
  int *a;
  cudaMalloc(&a, n * sizeof(int));
  fill<<<1, n + 32>>>(a, n);
  cudaDeviceSynchronize();
  cudaFree(a);
  forge();
  printf("done\n");
  return 0;
}
`

const cleanCU = `#include <cstdio>
__global__ void fill(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i;
}
int main() {
  const int n = 256;
  int *a, h[n];
  cudaMalloc(&a, n * sizeof(int));
  fill<<<1, n>>>(a, n);
  cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(a);
  printf("sum %d\n", [&] { int s = 0; for (int i = 0; i < n; i++) s += h[i]; return s; }());
  return 0;
}
`

// TestSanitizerOnGPU: on a GPU, compute-sanitizer still instruments a
// program started through the sandbox's helper (an exec between the tool
// and the program): memcheck finds the planted error, a clean program is
// clean, and the program cannot write the tool's log.
// LESSONS_TEST_NVCC=/usr/local/cuda/bin/nvcc, as root.
func TestSanitizerOnGPU(t *testing.T) {
	nvcc := os.Getenv("LESSONS_TEST_NVCC")
	if nvcc == "" || os.Geteuid() != 0 {
		t.Skip("needs a GPU and its toolkit: LESSONS_TEST_NVCC=/path/to/nvcc, as root")
	}
	cs := machine.SanitizerPath(nvcc)
	if cs == "" {
		t.Skip("no compute-sanitizer beside " + nvcc)
	}
	base := t.TempDir()
	tk := NewToolkit(buildcache.Compiler{Path: nvcc, Version: "test", Arch: os.Getenv("LESSONS_TEST_ARCH")}, &buildcache.Cache{Dir: filepath.Join(base, "cache"), MaxBytes: 1 << 30})
	s, err := TempSandbox("exercise-gpu-")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Logf("sandbox: %s", s.Report())
	var printed bytes.Buffer
	sanitizerPrinted = func(tool string, out []byte) { printed.Write(out) }
	defer func() { sanitizerPrinted = nil }()
	sp := spec(t, "[[check]]\nsanitizer = \"memcheck\"\n")

	v, err := Check(context.Background(), tk, s, job(t, sp, "x.cu", plantedCU), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("planted: %+v\nthe run under the tool printed:\n%s", v.Results, printed.String())
	if len(v.Results) != 1 || v.Results[0].Pass || !strings.Contains(v.Results[0].Got, "Invalid __global__ write") {
		t.Errorf("memcheck should find the planted write: %+v", v.Results)
	}
	// Under a root grader the program does not even see the tool: its
	// /proc shows only what it may trace (hidepid=2), and Landlock keeps
	// it from tracing the tool's outer layer (seen on the H100: it
	// printed "done" alone). Where it does see the tool, it must fail.
	if strings.Contains(printed.String(), "WROTE") || !strings.Contains(printed.String(), "done") {
		t.Errorf("the program should have run and failed to write the log")
	}
	printed.Reset()
	v, err = Check(context.Background(), tk, s, job(t, sp, "x.cu", cleanCU), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clean: %+v %q", v.Results, v.Output)
	if !v.Passed() || v.Results[0].Skipped {
		t.Errorf("a clean program should pass memcheck, not skip it: %+v\n%s", v.Results, printed.String())
	}
}

// A program's run leaves nothing in its folder for compute-sanitizer's
// run of it: the tool keeps files in the run's folder (its TMPDIR), and
// one that finds its place taken ends without a summary, which reads as
// the tool not working here, a skipped check that passes.
func TestSanitizerGetsAFreshFolder(t *testing.T) {
	blocked := strings.Replace(fakeSanitizer, "exec 3>\"$log\"", "if [ -e .cs-pipe ]; then echo \"Error: the tool's pipe is taken\" >&2; exit 1; fi\nexec 3>\"$log\"", 1)
	tk, s, base := sandboxToolkit(t, fakeNVCC)
	os.WriteFile(filepath.Join(base, "cuda", "bin", "compute-sanitizer"), []byte(blocked), 0o755)
	src := "// fake: [ -e .cs-pipe ] || mkdir .cs-pipe\n// fake: exit 0\n"
	v, err := Check(context.Background(), tk, s, job(t, spec(t, "[[check]]\nsanitizer = \"memcheck\"\n"), "x.cu", src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Results) != 1 || v.Results[0].Pass {
		t.Errorf("what the run left stopped the tool, and the check passed: %+v", v.Results)
	}
}
