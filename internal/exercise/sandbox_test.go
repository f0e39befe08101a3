package exercise

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/sandbox"
)

// The test binary is the sandbox's helper too (NewSandbox copies it).
func TestMain(m *testing.M) {
	sandbox.Helper()
	os.Exit(m.Run())
}

// fakeSanitizer is a compute-sanitizer that finds one error in whatever
// it runs. Like the real one, it opens its log at the start without
// O_CLOEXEC (strace: openat(..., O_WRONLY|O_CREAT|O_TRUNC) = 3) and
// writes the summary when its target has ended.
const fakeSanitizer = `#!/bin/sh
log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --log-file) log="$2"; shift 2 ;;
    --tool|--print-limit|--leak-check|--target-processes) shift 2 ;;
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
