package exercise

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// foreverNVCC is fakeNVCC that never ends on a source holding
// "// fake-forever": what nvcc does with a template that never stops
// growing, or an include that never ends.
var foreverNVCC = strings.Replace(fakeNVCC, "for s in $srcs; do\n", "for s in $srcs; do\n  if grep -q '^// fake-forever' \"$s\"; then exec sleep 600; fi\n", 1)

// A build that never ends is stopped at the build's time limit, and the
// student's report says so: not "interrupted", nor a compile error
// blamed on nothing. It used to run until the grade was stopped by hand.
func TestBuildStoppedAtItsLimit(t *testing.T) {
	tk, s, _ := sandboxToolkit(t, foreverNVCC)
	tk.BuildLimit = 2 * time.Second
	// A hang's guard, not a timing: the build's own limit comes first.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := Build(ctx, tk, s, job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", "// fake-forever\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Failed == nil || !strings.Contains(b.Failed[0].Got, "build was stopped after") {
		t.Fatalf("a build that never ends should be stopped at its limit and say so: %+v", b.Failed)
	}
	if !strings.Contains(b.Failed[0].Got, "after 2s") {
		t.Errorf("the report should name the limit: %s", b.Failed[0].Got)
	}
}

// A build reads no device: an #include of /dev/urandom or /dev/zero is
// refused at once (nvcc says the file cannot be opened: refused by
// Landlock, or not there in the build's own /dev), where it held a
// build slot until the build's limit, growing its memory all along.
func TestBuildReadsNoDevice(t *testing.T) {
	for _, dev := range []string{"/dev/urandom", "/dev/zero"} {
		t.Run(dev, func(t *testing.T) {
			tk, s, _ := sandboxToolkit(t, includeNVCC)
			tk.BuildLimit = 10 * time.Second
			b, err := Build(context.Background(), tk, s, job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", "// fake: echo hi\n// include: "+dev+"\n"), 0)
			if err != nil {
				t.Fatal(err)
			}
			if b.Failed == nil || !strings.Contains(b.Log, "Permission denied") && !strings.Contains(b.Log, "No such file") {
				t.Errorf("the build should have been refused %s: %+v\n%s", dev, b.Failed, b.Log)
			}
		})
	}
}

// The real nvcc builds in a build's sandbox with /dev/null its only
// device, and its #include of /dev/urandom is a compile error at once,
// naming the file. Needs nvcc and root (a build user of its own).
func TestRealBuildWithoutDevices(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	tk := realToolkit(t)
	if p := os.Getenv("LESSONS_TEST_NVCC"); p != "" {
		tk.NVCC.Path = p
	}
	s, err := TempSandbox("exercise-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	good := "#include <cstdio>\n__global__ void k(int *a) { a[threadIdx.x] = 1; }\nint main() { printf(\"built\\n\"); return 0; }\n"
	b, err := Build(context.Background(), tk, s, job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", good), 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Failed != nil {
		t.Fatalf("an honest file does not build in the sandbox: %+v\n%s", b.Failed, b.Log)
	}
	tk.BuildLimit = time.Minute
	b, err = Build(context.Background(), tk, s, job(t, spec(t, "[[check]]\nexit = 0\n"), "x.cu", "#include \"/dev/urandom\"\nint main() {}\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Failed == nil || !strings.Contains(b.Failed[0].Got, "compile error") || !strings.Contains(b.Log, "urandom") {
		t.Errorf("an #include of /dev/urandom should be a compile error naming it: %+v\n%s", b.Failed, b.Log)
	}
	t.Logf("%s", b.Failed[0].Got)
}
