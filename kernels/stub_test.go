package kernels_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cudalessons/lessons/checker"
)

// stubRun is the statistics library, built with nvcc as lessons builds
// it, and a program of testdata/stub linked against the stand-in CUDA
// runtime there: the library's own code runs on a machine without a GPU.
type stubRun struct{ dir string }

// buildStub builds the library, the stand-in runtime and testdata/stub's
// prog; it skips where there is no nvcc or C compiler.
func buildStub(t *testing.T, prog string) stubRun {
	t.Helper()
	dir, cc, stub := stubLibrary(t)
	run(t, dir, cc, "-o", "prog", filepath.Join(stub, prog), "-L.", "-lcudart", "-Wl,-rpath,"+dir)
	return stubRun{dir}
}

// stubLibrary builds the library (lib.so) and the stand-in runtime
// (libcudart.so) into a new folder, as lessons builds the library; it
// skips where there is no nvcc or C compiler. It returns the folder, the
// C compiler and testdata/stub.
func stubLibrary(t *testing.T) (dir, cc, stub string) {
	t.Helper()
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Skip("no nvcc here")
	}
	if cc, err = exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler here")
	}
	dir = t.TempDir()
	writeLibrary(t, dir)
	stub, _ = filepath.Abs("testdata/stub")
	libraryInto(t, nvcc, dir)
	// The stand-in includes the runtime's types: from the toolkit of the
	// nvcc found, wherever it lies (a Debian package puts them in
	// /usr/include, NVIDIA's installer in /usr/local/cuda/include).
	run(t, dir, cc, "-shared", "-fPIC", "-I"+cudaInclude(), "-o", "libcudart.so", filepath.Join(stub, "cudart.c"))
	return dir, cc, stub
}

// built is the statistics library as lessons builds it (nvcc, from the
// files it embeds), built once for the package's tests: nvcc takes
// seconds of CPU for it, and some seventy tests use it. Each test copies
// it into its own folder, so that none sees another's changes. Its
// folder also keeps the harness programs harnessRig.build made
// (programs/, by programKey).
var built struct {
	once sync.Once
	dir  string
	err  error
}

// libraryInto puts the statistics library, lib.so, into dir, beside the
// files writeLibrary wrote there.
func libraryInto(t *testing.T, nvcc, dir string) {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "lessons-kernels-library-")
		if built.err == nil {
			built.err = writeLibraryFiles(built.dir)
		}
		if built.err != nil {
			return
		}
		cmd := exec.Command(nvcc, "-x", "c++", "-shared", "-Xcompiler", "-fPIC", "-cudart", "none", "-o", "lib.so", "allocstats.cu")
		cmd.Dir = built.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("nvcc %v: %v\n%s", cmd.Args[1:], err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	copyFile(t, filepath.Join(built.dir, "lib.so"), filepath.Join(dir, "lib.so"))
}

// TestMain removes the library built once for the package's tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// run runs the program with the library preloaded and env added, and
// returns its verified record and its output.
func (s stubRun) run(t *testing.T, env ...string) (*checker.Received, string) {
	t.Helper()
	key := make([]byte, checker.KeySize)
	rand.Read(key)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	cmd := exec.Command(filepath.Join(s.dir, "prog"))
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = append([]string{"LD_PRELOAD=" + filepath.Join(s.dir, "lib.so"), "LESSONS_STATS_FD=3", "LESSONS_STATS_KEY=" + hex.EncodeToString(key)}, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan struct{})
	go func() { out, _ = io.ReadAll(stdout); close(done) }()
	data, _ := io.ReadAll(r)
	<-done
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the program: %v", err)
	}
	c := checker.NewChannel(key)
	c.Write(data)
	got, err := c.Close()
	if err != nil || got == nil || got.Stats == nil {
		t.Fatalf("the record did not verify: %v", err)
	}
	return got, string(out)
}

// A runtime loaded with RTLD_LOCAL (as Python loads an extension
// module's libraries) is out of the library's sight: its hook of a call
// from there cannot find the real function, and says which and what to do
// instead of blaming how the program was linked.
func TestLibraryNamesARuntimeItCannotSee(t *testing.T) {
	dir, cc, stub := stubLibrary(t)
	run(t, dir, cc, "-shared", "-fPIC", "-o", "libuser.so", filepath.Join(stub, "local", "user.c"), "-L.", "-lcudart", "-Wl,-rpath,"+dir)
	run(t, dir, cc, "-o", "local", filepath.Join(stub, "local", "local.c"), "-ldl")
	cmd := exec.Command(filepath.Join(dir, "local"), filepath.Join(dir, "libuser.so"))
	cmd.Env = []string{"LD_PRELOAD=" + filepath.Join(dir, "lib.so")}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Skipf("the hook found the runtime in a local scope here (%s): nothing to say", out)
	}
	for _, want := range []string{"the CUDA function cudaMalloc cannot be found", "RTLD_GLOBAL", "-cudart shared"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the message lacks %q:\n%s", want, out)
		}
	}
}
