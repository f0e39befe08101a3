package exercise

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/checker"
)

// TestWitnessDriverCounts: a program that loads the driver itself
// (dlopen of libcuda.so.1, a stand-in here) and allocates through it.
// The library counts its cuMemAlloc as cudaMalloc (malloc_calls) and its
// cuMemAllocAsync as cudaMallocAsync; the kernel counts them at the
// driver's entry points (cuMemAlloc, cuMemAllocAsync, ...) and none at
// the runtime's. Measured with every count compared (witnessAll), the
// driver's counts equal the program's calls exactly; as a grade compares, each allocation figure lies between the
// runtime's count and it plus its driver twins' (the record says the
// program called the driver itself), the record's claim of those calls
// is no more than the driver's probes counted, and the run passes,
// witnessed.
func TestWitnessDriverCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler here")
	}
	w, why := OpenWitness()
	if w == nil {
		t.Skipf("no outside witness here: %s", why)
	}
	defer w.Close()
	tk.Witness = w
	t.Setenv("LESSONS_GPU", "Fake H200,9.0,1024")
	drv := t.TempDir()
	src, _ := filepath.Abs("testdata/driver/libcuda.c")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", filepath.Join(drv, "libcuda.so.1"), src).CombinedOutput(); err != nil {
		t.Fatalf("the stand-in driver: %v\n%s", err, out)
	}
	prog, _ := filepath.Abs("testdata/driver/own_driver.cu")
	s := spec(t, fmt.Sprintf("flags = [\"-Xlinker\", \"-rpath=%s\"]\n[[check]]\nexit = 0\n[[check]]\nstat = \"malloc_calls\"\nequals = 4\n[[check]]\nstat = \"malloc_async_calls\"\nequals = 2\n", drv))
	run := func(hash string) *Verdict {
		j := &Job{ID: "driver", Spec: s, Dir: t.TempDir(), Hash: hash, Files: []File{{Name: "own_driver.cu", Path: prog}}}
		v, err := Check(context.Background(), tk, Plain{}, j, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	witnessAll = true
	v := run("all")
	witnessAll = false
	got := ""
	for _, r := range v.Results {
		if r.Name == checker.WitnessCheckName {
			got = r.Got
		}
	}
	t.Logf("every count compared: %s", got)
	for _, want := range []string{
		"cuMemAlloc: the record says 0, the kernel counted 3", "cuMemFree: the record says 0, the kernel counted 3",
		"cuMemAllocAsync: the record says 0, the kernel counted 2", "cuMemFreeAsync: the record says 0, the kernel counted 2",
		"cuArrayCreate: the record says 0, the kernel counted 1", "cuArrayDestroy: the record says 0, the kernel counted 1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("measured, no %q in %q", want, got)
		}
	}
	log := filepath.Join(t.TempDir(), "witness.jsonl")
	t.Setenv("LESSONS_WITNESS_LOG", log)
	v = run("grade")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var line witnessLogLine
	if err := json.Unmarshal(data, &line); err != nil {
		t.Fatalf("the witness's log: %v\n%s", err, data)
	}
	exactSites(t, line)
	if !line.Compared || !line.Equal || line.Kernel["cuMemAlloc"] != 3 || line.Kernel["malloc_calls"] != 0 || line.Record["malloc_calls"] != 4 || line.Kernel["cuArrayCreate"] != 1 || line.DriverAllocs != 6 || line.DriverFrees != 6 || line.Job != "driver" {
		t.Errorf("the witness's log: %s", data)
	}
	got = ""
	for _, r := range v.Results {
		if r.Name == checker.WitnessCheckName {
			got = r.Got
		}
	}
	t.Logf("as a grade compares: %s", got)
	for _, want := range []string{"malloc_calls 4 (runtime 0, driver 4)", "malloc_async_calls 2 (runtime 0, driver 2)",
		"free_calls 4 (runtime 0, driver 4)", "the program's own driver allocation calls 6 of at most 6", "counted, not compared: "} {
		if !strings.Contains(got, want) {
			t.Errorf("as a grade compares, no %q in %q", want, got)
		}
	}
	if !v.Passed() || v.Unwitnessed != "" {
		t.Errorf("as a grade compares, the run fails or is not witnessed (%q): %+v (output %q)", v.Unwitnessed, v.Results, v.Output)
	}
}

// TestWitnessEveryRuntimeEntry: bench/witness/apis.cu calls each of the
// runtime's allocation entry points once (cudaMallocPitch, cudaMalloc3D
// and the three arrays', which the library counts as malloc_calls, among
// them).
// Without a GPU each call fails, and each is counted all the same, by the
// library and by the kernel alike: the witness's comparison passes (it
// failed when only cudaMalloc was probed for malloc_calls).
func TestWitnessEveryRuntimeEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	w, why := OpenWitness()
	if w == nil {
		t.Skipf("no outside witness here: %s", why)
	}
	defer w.Close()
	tk.Witness = w
	t.Setenv("LESSONS_GPU", "Fake H200,9.0,1024")
	src, _ := filepath.Abs("../../bench/witness/apis.cu")
	j := &Job{ID: "apis", Spec: spec(t, "[[check]]\nexit = 0\n"), Dir: t.TempDir(), Hash: "apis", Files: []File{{Name: "apis.cu", Path: src}}}
	log := filepath.Join(t.TempDir(), "witness.jsonl")
	t.Setenv("LESSONS_WITNESS_LOG", log)
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(log); err != nil {
		t.Error(err)
	} else {
		var line witnessLogLine
		if err := json.Unmarshal(data, &line); err != nil {
			t.Fatalf("the witness's log: %v\n%s", err, data)
		}
		exactSites(t, line)
	}
	for _, r := range v.Results {
		if r.Name == checker.WitnessCheckName {
			t.Logf("%s", r.Got)
			if !r.Pass || !strings.Contains(r.Got, "malloc_calls 6,") || !strings.Contains(r.Got, "malloc_host_calls 2") {
				t.Errorf("%+v", r)
			}
			return
		}
	}
	t.Errorf("no comparison with the witness: %+v (not witnessed: %q)", v.Results, v.Unwitnessed)
}

// exactSites wants every kind of site of every count the run reached
// (but a size's and a launch's, probed at the entry alone) counted as
// often as the entry:
// each call of the runtime's and the driver's entry points, honest as
// these are, left by one of its ways out once, and reached the function
// behind it (the driver's) once and left it once. A count whose ways out
// were not found (a function that did not decode) is named.
func exactSites(t *testing.T, line witnessLogLine) {
	t.Helper()
	if len(line.Past) > 0 {
		t.Errorf("an honest run entered functions past their first instruction: %v", line.Past)
	}
	entryOnly := map[string]bool{}
	for _, p := range cudaProbes {
		entryOnly[p.Name] = entryOnly[p.Name] || p.Arg != 0 || p.EntryOnly
	}
	for _, name := range slices.Sorted(maps.Keys(line.Sites)) {
		s := line.Sites[name]
		if s[0] == 0 || entryOnly[name] {
			continue
		}
		t.Logf("%s: entered %d, left %d, work entered %d, work left %d", name, s[0], s[1], s[2], s[3])
		if s[1] != s[0] {
			t.Errorf("%s: entered %d times, left %d times by the ways out found", name, s[0], s[1])
		}
		if (s[2] != 0 || s[3] != 0) && (s[2] != s[0] || s[3] != s[0]) {
			t.Errorf("%s: entered %d times; the function behind it entered %d times, left %d times", name, s[0], s[2], s[3])
		}
	}
}
