package exercise

import (
	"bufio"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/suspect"
	"github.com/cudalessons/lessons/internal/witness"
	"github.com/cudalessons/lessons/kernels"
)

// TestCorpus grades each forger of testdata/corpus against corpus.toml
// (built with the nvcc flags of its "// flags:" line), with the real
// statistics library, as the tests' user (root on CI) in the plain
// runner and as the sandbox's own user in the grading sandbox, and wants
// each to fail with its reason while honest.cu passes. The forgers make
// no CUDA call that needs a GPU: what they forge is the record's, not
// the GPU's.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	t.Setenv("LESSONS_GPU", "Fake H200,9.0,1024")
	data, err := os.ReadFile("testdata/corpus/corpus.toml")
	if err != nil {
		t.Fatal(err)
	}
	forge, _ := filepath.Abs("testdata/corpus/forge.h")
	patch, _ := filepath.Abs("testdata/corpus/patch.h")
	private, _ := filepath.Abs("testdata/corpus/private_runtime.h")
	layout := libraryLayout(t, tk)
	// The outside witness, where BPF may be loaded here (root): what
	// the library cannot see, it counts; the corpus is graded with every
	// bound it has, the driver's retains and imports included (the
	// default since session 29).
	if w, why := OpenWitness(); w != nil {
		defer w.Close()
		tk.Witness = w
		defer setWitnessed("malloc_calls")()
	} else {
		t.Logf("no outside witness here: %s", why)
	}
	runners := map[string]Runner{"plain": Plain{}}
	if sb, err := TempSandbox("lessons-corpus-"); err == nil {
		defer sb.Close()
		runners["sandbox"] = sb
	} else {
		t.Logf("no grading sandbox here: %v", err)
	}
	files, _ := filepath.Glob("testdata/corpus/*.cu")
	scripts, _ := filepath.Glob("testdata/corpus/*.py")
	// The system's python3, which the sandbox's users may run (a pyenv's
	// under /root is not theirs to reach).
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		tk.Python = "/usr/bin/python3"
		files = append(files, scripts...)
	} else {
		t.Logf("no /usr/bin/python3 here: the Python forgers are not run")
	}
	for _, file := range files {
		name, ext := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), filepath.Ext(file)
		var want, flags []string
		if name != "honest" {
			want, flags = directives(t, file) // flags: -lcuda for a forger that calls the driver by name
		}
		if ext == ".py" {
			name += "_py"
		}
		witnessOff := tk.Witness == nil
		runs := maps.Clone(runners)
		if os.Geteuid() != 0 && sandboxWant(t, file) != "" && !sandboxFilterOnly(t, file) {
			// The library's own prctl, asked for as the sandbox asks,
			// with the program's binary readable (the plain runner's):
			// as a user that is not root, its /proc/self/mem is root's.
			runs["undumpable"] = Plain{}
		}
		for rn, r := range runs {
			t.Run(name+"/"+rn, func(t *testing.T) {
				src, _ := filepath.Abs(file)
				j := &Job{ID: "corpus", Spec: spec(t, string(data)), Dir: t.TempDir(), Hash: name + rn,
					Files: []File{{Name: filepath.Base(file), Path: src}, {Name: "forge.h", Path: forge}, {Name: "patch.h", Path: patch}, {Name: "layout.h", Path: layout}, {Name: "private_runtime.h", Path: private}}}
				j.Spec.Flags = append(j.Spec.Flags, flags...)
				if rn == "undumpable" {
					j.Env = []string{"LESSONS_STATS_UNDUMPABLE=1"}
				}
				v, err := Check(context.Background(), tk, r, j, nil)
				if err != nil {
					t.Fatal(err)
				}
				// A run is marked not witnessed exactly when the witness
				// did not compare its record.
				if witnessOff != (v.Unwitnessed != "") && v.Passed() {
					t.Errorf("witness off %v, but the verdict's not witnessed is %q", witnessOff, v.Unwitnessed)
				}
				if strings.HasPrefix(name, "honest") {
					if !v.Passed() {
						t.Fatalf("the honest program fails: %+v (output %q)", v.Results, v.Output)
					}
					return
				}
				if inSandbox := sandboxWant(t, file); (rn == "sandbox" || rn == "undumpable") && inSandbox != "" {
					// What the sandbox itself refuses fails there by
					// its rule, whatever else would catch it.
					if !failedWith(v, inSandbox) {
						t.Fatalf("in the sandbox, not refused with %q: %+v (output %q)", inSandbox, v.Results, v.Output)
					}
					return
				}
				if mark := forgedMark(t, file); mark != "" && v.Passed() && !strings.Contains(v.Output, mark) {
					// A race the program lost this time: it forged
					// nothing, and its honest run rightly passes.
					t.Logf("the forgery did not happen this run (no %q in its output): the run is honest, and passes", mark)
					return
				}
				if v.Passed() && !(witnessOff && needsWitness(t, file)) {
					t.Fatalf("the forger passed: %+v (output %q)", v.Results, v.Output)
				}
				for _, w := range want {
					if failedWith(v, w) {
						t.Logf("fails with %q", w)
						return
					}
				}
				if witnessOff && needsWitness(t, file) {
					// Without the witness, the source scan names it for
					// review, and the run is marked not witnessed.
					t.Logf("without the witness it passes: %v (not witnessed: %s)", v.Passed(), v.Unwitnessed)
					if v.Passed() && v.Unwitnessed == "" {
						t.Errorf("it passes without the witness, and is not marked not witnessed")
					}
					src, _ := os.ReadFile(file)
					for _, f := range suspect.Scan(src) {
						for _, w := range want {
							if strings.Contains(f.String(), w) {
								return
							}
						}
					}
				}
				t.Errorf("fails, but not with %q: %+v (output %q)", want, v.Results, v.Output)
			})
		}
	}
}

// libraryLayout writes layout.h, where the grader's build of the
// statistics library keeps the run's key, its pipe, its frame number and
// its end mark (offsets from its load address): what key_layout.cu
// knows. It builds the library as tk does, from the same sources, with
// its symbol table, and checks that the build loads alike (the same
// segments) as tk's stripped one.
func libraryLayout(t *testing.T, tk *Toolkit) string {
	t.Helper()
	lib, err := tk.StatsLibrary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(lib)
	full := filepath.Join(t.TempDir(), "liballocstats.so")
	var args []string
	all := statsLibraryArgs(full, filepath.Join(dir, kernels.Main))
	for i := 0; i < len(all); i++ {
		if all[i] == "-Xlinker" && i+1 < len(all) && all[i+1] == "--strip-all" {
			i++
			continue
		}
		args = append(args, all[i])
	}
	cmd := exec.Command(tk.NVCC.Path, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the library with its symbol table: %v\n%s", err, out)
	}
	loads := func(path string) []elf.ProgHeader {
		f, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var ps []elf.ProgHeader
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD {
				ps = append(ps, p.ProgHeader)
			}
		}
		return ps
	}
	if a, b := loads(lib), loads(full); !reflect.DeepEqual(a, b) {
		t.Fatalf("the library with its symbol table loads otherwise than the grader's:\n%+v\n%+v", a, b)
	}
	f, err := elf.Open(full)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	at := map[string]uint64{}
	for _, s := range syms {
		at[s.Name] = s.Value
	}
	var b strings.Builder
	for def, name := range map[string]string{"LAYOUT_KEY": "_ZN12_GLOBAL__N_17chanKeyE", "LAYOUT_CHAN": "_ZN12_GLOBAL__N_16chanFdE",
		"LAYOUT_SEQ": "_ZN12_GLOBAL__N_17chanSeqE", "LAYOUT_ENDED": "_ZN12_GLOBAL__N_19chanEndedE"} {
		if at[name] == 0 {
			t.Fatalf("no %s in the library's symbol table", name)
		}
		fmt.Fprintf(&b, "#define %s 0x%xUL\n", def, at[name])
	}
	out := filepath.Join(t.TempDir(), "layout.h")
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpusWriteExec: the honest program and the plain library's record
// under the grading sandbox's write-exec rule (LESSONS_SANDBOX_WX=on),
// without a GPU: the library and the loader need no code written.
func TestCorpusWriteExec(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	t.Setenv("LESSONS_SANDBOX_WX", "on")
	sb, err := TempSandbox("lessons-corpus-")
	if err != nil {
		t.Skipf("no grading sandbox here: %v", err)
	}
	defer sb.Close()
	data, _ := os.ReadFile("testdata/corpus/corpus.toml")
	src, _ := filepath.Abs("testdata/corpus/honest.cu")
	j := &Job{ID: "corpus", Spec: spec(t, string(data)), Hash: "wx", Files: []File{{Name: "honest.cu", Path: src}}}
	v, err := Check(context.Background(), tk, sb, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() {
		t.Fatalf("the honest program fails under the write-exec rule: %+v (output %q)", v.Results, v.Output)
	}
}

// needsWitness says whether a forger's file says "// needs: witness":
// only a count from outside the process catches it; without one, the
// source scan names what it uses for review.
func needsWitness(t *testing.T, file string) bool {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() == "// needs: witness" || sc.Text() == "# needs: witness" {
			return true
		}
	}
	return false
}

// forgedMark is a racing forger's "// forged when it prints: TEXT" line's
// TEXT (a Python forger's "# forged when it prints: "): what it prints once its forgery happened. A pass without it is an
// honest run of a forger that lost its race (on the real driver a
// process's exit may always win it).
func forgedMark(t *testing.T, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		for _, p := range []string{"// forged when it prints: ", "# forged when it prints: "} {
			if w, ok := strings.CutPrefix(l, p); ok {
				return w
			}
		}
	}
	return ""
}

// sandboxWant is a forger's "// in the sandbox: WANT" line's WANT (a
// Python forger's "# in the sandbox: "): how the grading sandbox's own
// rules fail it, whatever the witness and the scan say.
func sandboxWant(t *testing.T, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		for _, p := range []string{"// in the sandbox: ", "# in the sandbox: ", "// in the sandbox's filter: ", "# in the sandbox's filter: "} {
			if w, ok := strings.CutPrefix(l, p); ok {
				return w
			}
		}
	}
	return ""
}

// sandboxFilterOnly says whether a forger's sandbox line is "// in the
// sandbox's filter: WANT": what refuses it is the grading sandbox's own
// system call filter, not the statistics library's prctl or filter, so
// the plain runner with LESSONS_STATS_UNDUMPABLE (TestCorpusAsNobody's
// third runner) does not.
func sandboxFilterOnly(t *testing.T, file string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(data), "\n// in the sandbox's filter: ") || strings.Contains(string(data), "\n# in the sandbox's filter: ")
}

// setWitnessed compares names alone with the record, until the func it
// returns is called.
func setWitnessed(names ...string) func() {
	old := witnessed
	witnessed = map[string]bool{}
	for _, n := range names {
		witnessed[n] = true
	}
	return func() { witnessed = old }
}

// TestCorpusAsNobody grades the corpus again with the grader as nobody,
// not root: the plain runner runs the programs as nobody, the grading
// sandbox as a grader that is not root (its pid and user namespaces),
// and the witness is off (BPF needs root), so a forger only the witness
// catches must be named by the source scan. TestCorpus, run again in a
// copy of this test binary as nobody.
func TestCorpusAsNobody(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	if os.Getenv("CORPUS_TEST_AS_NOBODY") != "" {
		t.Skip("already nobody")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to become nobody")
	}
	realToolkit(t) // skips without nvcc
	dir, err := os.MkdirTemp("", "lessons-corpus-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777)
	self, _ := os.Executable()
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "exercise.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestCorpus$", "-test.v")
	cmd.Env = []string{"CORPUS_TEST_AS_NOBODY=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if err != nil {
		t.Fatalf("the corpus as nobody: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS: TestCorpus/honest/sandbox") || !strings.Contains(string(out), "--- PASS: TestCorpus/honest_py/sandbox") {
		t.Errorf("the grading sandbox did not run as nobody")
	}
	// And under a grader with no pid namespace, so no mount namespace for
	// the run: the program's binary in its folder is readable (its process
	// dumpable but for the library's prctl), as a script's interpreter is.
	cmd = exec.Command(bin, "-test.run=^TestCorpus$/^(proc_self_mem|proc_self_mem_py|honest|honest_py)$/sandbox", "-test.v")
	cmd.Env = []string{"CORPUS_TEST_AS_NOBODY=1", "LESSONS_SANDBOX_PIDNS=off", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err = cmd.CombinedOutput()
	t.Logf("as nobody with no pid namespace:\n%s", out)
	if err != nil {
		t.Fatalf("the corpus as nobody with no pid namespace: %v", err)
	}
	for _, name := range []string{"proc_self_mem", "proc_self_mem_py", "honest", "honest_py"} {
		if !strings.Contains(string(out), "--- PASS: TestCorpus/"+name+"/sandbox") {
			t.Errorf("as nobody with no pid namespace, %s in the sandbox did not pass", name)
		}
	}
}

// TestHookDetourStopped: a program that finds a hook's pointer to the
// runtime's cudaMalloc by its value (the statistics library has no symbol
// table to name it) and points it at a stub of its own is stopped by the
// library at its next call, without the outside witness: the hook checks
// where it forwards to when the pointer changes. Its record is cut short.
func TestHookDetourStopped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	t.Setenv("LESSONS_GPU", "Fake H200,9.0,1024")
	src, _ := filepath.Abs("testdata/detour/by_value.cu")
	j := &Job{ID: "detour", Spec: spec(t, "[[check]]\nexit = 0\n[[check]]\ncontains = \"detoured\"\n"), Dir: t.TempDir(), Hash: "detour",
		Files: []File{{Name: "by_value.cu", Path: src}}}
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed() || !strings.Contains(v.Output, "hook of cudaMalloc forwards into the program or memory of no library") || strings.Contains(v.Output, "detoured") {
		t.Fatalf("the detour was not stopped: %+v (output %q)", v.Results, v.Output)
	}
	if !failedWith(v, "exit status 70") {
		t.Errorf("not stopped with exit status 70: %+v", v.Results)
	}
}

// TestAfterEndOnGPU: after_end.cu's work done where it works on a GPU, in
// a global object's destructor through the driver (the runtime is torn
// down by then): the record ends after the destructor, so its hundred
// cuMemAlloc count as cudaMalloc calls (the witness, where it is on, sees
// them too). Without a GPU the driver does not answer and nothing is done,
// so it is skipped.
func TestAfterEndOnGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := gpuToolkit(t)
	if w, why := OpenWitness(); w != nil {
		defer w.Close()
		tk.Witness = w
		defer setWitnessed("malloc_calls")()
	} else {
		t.Logf("no outside witness here: %s", why)
	}
	data, err := os.ReadFile("testdata/corpus/corpus.toml")
	if err != nil {
		t.Fatal(err)
	}
	file := "testdata/gpuforgers/after_end_driver.cu"
	src, _ := filepath.Abs(file)
	want, _ := directives(t, file)
	runners := map[string]Runner{"plain": Plain{}}
	if sb, err := TempSandbox("lessons-corpus-"); err == nil {
		defer sb.Close()
		runners["sandbox"] = sb
	}
	for rn, r := range runners {
		t.Run(rn, func(t *testing.T) {
			s := spec(t, string(data))
			s.Flags = append(s.Flags, "-lcuda")
			j := &Job{ID: "corpus", Spec: s, Dir: t.TempDir(), Hash: "after-end-" + rn, Files: []File{{Name: filepath.Base(file), Path: src}}}
			v, err := Check(context.Background(), tk, r, j, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("output %q", v.Output)
			if strings.Contains(v.Output, "no driver after the runtime's teardown") {
				// The driver refused the destructor (on the H200 with driver
				// 580 it does): the forger did no work, and its grade is
				// the honest one it earned.
				if !v.Passed() {
					t.Errorf("the forger did no work after the end and failed: %+v", v.Results)
				}
				t.Skip("the driver refuses after the runtime's teardown here: nothing was done unseen")
			}
			for _, w := range want {
				if failedWith(v, w) {
					t.Logf("fails with %q", w)
					return
				}
			}
			t.Errorf("not failed with %q: %+v (output %q)", want, v.Results, v.Output)
		})
	}
}

// TestWitnessBoundsHostWaits: an honest program's host waits, made
// through the hooks, are the record's as many times as the runtime's
// entries are entered (the bound that fails sync_around.cu of the
// corpus), in the plain runner and the grading sandbox; it needs the
// outside witness (root).
func TestWitnessBoundsHostWaits(t *testing.T) {
	tk, _ := witnessedToolkit(t)
	runners := map[string]Runner{"plain": Plain{}}
	if sb, err := TempSandbox("lessons-corpus-"); err == nil {
		defer sb.Close()
		runners["sandbox"] = sb
	}
	src, _ := filepath.Abs("testdata/waits/honest_waits.cu")
	for rn, r := range runners {
		t.Run(rn, func(t *testing.T) {
			j := &Job{ID: "waits", Spec: spec(t, "[[check]]\nexit = 0\n[[check]]\nstat = \"device_syncs\"\nequals = 1\n[[check]]\nstat = \"stream_syncs\"\nequals = 1\n[[check]]\nstat = \"event_syncs\"\nequals = 1\n"),
				Dir: t.TempDir(), Hash: "waits-" + rn, Files: []File{{Name: "honest_waits.cu", Path: src}}}
			v, err := Check(context.Background(), tk, r, j, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Passed() || v.Unwitnessed != "" {
				t.Fatalf("the honest waits fail (not witnessed %q): %+v (output %q)", v.Unwitnessed, v.Results, v.Output)
			}
			bounded := false
			for _, res := range v.Results {
				if res.Name == checker.WitnessCheckName {
					t.Logf("%s", res.Got)
					bounded = strings.Contains(res.Got, "calls of the runtime's cudaStreamSynchronize within the record's stream_syncs 1 of at most 1")
				}
			}
			if !bounded {
				t.Errorf("the witness did not bound the waits: %+v", v.Results)
			}
		})
	}
}

// TestWitnessCountsProcMemWrites: corpus/proc_mem_probe.cu, run by
// root in the plain runner (where its /proc/self/mem is its own), fails
// by the witness's count of writes through /proc/PID/mem, which it makes
// to take the breakpoints out and to put them back. It skips where that
// count cannot attach (no kprobes, no BPF trampolines) and where the
// witness cannot be opened.
func TestWitnessCountsProcMemWrites(t *testing.T) {
	tk, w := witnessedToolkit(t)
	if off := w.MemWritesOff(); off != "" {
		t.Skipf("writes through /proc/PID/mem are not counted here: %s", off)
	}
	data, _ := os.ReadFile("testdata/corpus/corpus.toml")
	src, _ := filepath.Abs("testdata/corpus/proc_mem_probe.cu")
	private, _ := filepath.Abs("testdata/corpus/private_runtime.h")
	j := &Job{ID: "memwrites", Spec: spec(t, string(data)), Dir: t.TempDir(), Hash: "memwrites",
		Files: []File{{Name: "proc_mem_probe.cu", Path: src}, {Name: "private_runtime.h", Path: private}}}
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed() || !failedWith(v, "through /proc/PID/mem") {
		t.Fatalf("not failed by its writes through /proc/PID/mem: %+v (output %q)", v.Results, v.Output)
	}
}

// TestWitnessBoundsDriverWaits: corpus/driver_sync_around.cu, whose
// host waits are made at the driver's entries found in its symbol table,
// fails by the witness's count of the driver's waits where they are
// bounded (the default since session 25's GPU runs), and passes where
// they are only shown (LESSONS_WITNESS_DRIVER_WAITS=shown).
func TestWitnessBoundsDriverWaits(t *testing.T) {
	tk, _ := witnessedToolkit(t)
	data, _ := os.ReadFile("testdata/corpus/corpus.toml")
	src, _ := filepath.Abs("testdata/corpus/driver_sync_around.cu")
	for _, shown := range []string{"shown", ""} {
		t.Setenv("LESSONS_WITNESS_DRIVER_WAITS", shown)
		v := checkPlain(t, tk, spec(t, string(data)), "driverwaits", "driverwaits"+shown, src)
		wantFailedOnlyWhenBounded(t, v, "the driver's waits "+shown, shown == "", "calls of the driver's")
	}
}

// TestWitnessBoundsDriverVMM grades corpus/vmm_around.cu (round 24: the
// driver's own virtual memory functions called around the hooks): bounded
// by the record's vmm_*_calls (the default since session 27), it fails;
// only shown (LESSONS_WITNESS_DRIVER_VMM=shown) or not probed (=off), it
// passes. The same calls made through the hooks pass with the bound.
func TestWitnessBoundsDriverVMM(t *testing.T) {
	t.Setenv("LESSONS_WITNESS_DRIVER_VMM", "shown") // probed whatever each case asks
	tk, _ := witnessedToolkit(t)
	data, _ := os.ReadFile("testdata/corpus/corpus.toml")
	src, _ := filepath.Abs("testdata/corpus/vmm_around.cu")
	// The same calls made through the library's hooks (dlsym answers
	// with them) pass with the bound: the kernel counts each once.
	honest := filepath.Join(t.TempDir(), "vmm_hooked.cu")
	if err := os.WriteFile(honest, []byte(vmmHooked), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LESSONS_WITNESS_DRIVER_VMM", "")
	v := checkPlain(t, tk, spec(t, string(data)), "drivervmm", "drivervmmhooked", honest)
	if !v.Passed() || !strings.Contains(v.Output, "made 3 through the hooks") {
		t.Fatalf("the driver's virtual memory functions called through the hooks fail the bound: %+v (output %q)", v.Results, v.Output)
	}
	for _, way := range []string{"shown", "off", ""} {
		t.Setenv("LESSONS_WITNESS_DRIVER_VMM", way)
		v := checkPlain(t, tk, spec(t, string(data)), "drivervmm", "drivervmm"+way, src)
		if !strings.Contains(v.Output, "100 reservations") {
			t.Fatalf("the forger found no driver to call (output %q)", v.Output)
		}
		wantFailedOnlyWhenBounded(t, v, "the driver's virtual memory functions "+way, way == "", "virtual memory managed around the statistics library")
	}
}

// TestWitnessBoundsDriverVMMReferences grades corpus/vmm_retain_around.cu
// (round 25: a hundred references to a chunk taken at the driver's own
// cuMemRetainAllocationHandle and cuMemImportFromShareableHandle, around
// the hooks): the two are probed and bounded, added up, by the record's
// vmm_retain_attempts by default, and it fails; only shown, or unprobed
// (LESSONS_WITNESS_DRIVER_REFS=off), it passes. Here (no
// device) every call is refused, so an honest program's retains and
// imports through the hooks are refused too: the record counts no
// reference (vmm_retain_calls 0) and every call (vmm_retain_attempts),
// and it passes, where a bound by the successes would fail it.
func TestWitnessBoundsDriverVMMReferences(t *testing.T) {
	tk, _ := witnessedToolkit(t)
	data, _ := os.ReadFile("testdata/corpus/corpus.toml")
	src, _ := filepath.Abs("testdata/corpus/vmm_retain_around.cu")
	honest := filepath.Join(t.TempDir(), "vmm_refs_hooked.cu")
	if err := os.WriteFile(honest, []byte(vmmRefsHooked), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LESSONS_WITNESS_DRIVER_VMM", "")
	log := filepath.Join(t.TempDir(), "witness.jsonl")
	t.Setenv("LESSONS_WITNESS_LOG", log)
	v := checkPlain(t, tk, spec(t, string(data)), "drivervmmrefs", "drivervmmrefshooked", honest)
	if !v.Passed() || !strings.Contains(v.Output, "6 calls through the hooks") {
		t.Fatalf("retains and imports through the hooks fail the bound: %+v (output %q)", v.Results, v.Output)
	}
	t.Logf("through the hooks: %s", strings.TrimSpace(v.Output))
	// The witness's log keeps the record's figure beside the kernel's
	// counts of the two: what a measurement over a course reads.
	var line witnessLogLine
	if logged, err := os.ReadFile(log); err != nil {
		t.Error(err)
	} else if err := json.Unmarshal(logged, &line); err != nil {
		t.Errorf("the witness's log: %v\n%s", err, logged)
	} else if line.Record["vmm_retain_attempts"] != 6 || line.Kernel["cuMemRetainAllocationHandle"] != 3 || line.Kernel["cuMemImportFromShareableHandle"] != 3 {
		t.Errorf("the witness's log: vmm_retain_attempts %d, the kernel's retains %d and imports %d; want 6, 3 and 3",
			line.Record["vmm_retain_attempts"], line.Kernel["cuMemRetainAllocationHandle"], line.Kernel["cuMemImportFromShareableHandle"])
	}
	t.Setenv("LESSONS_WITNESS_LOG", "")
	// The bound by default (""); only shown with the seven shown;
	// unprobed with LESSONS_WITNESS_DRIVER_REFS=off: it passes.
	for _, way := range []string{"shown", "off", ""} {
		vmm, refs := way, ""
		if way == "off" {
			vmm, refs = "", "off"
		}
		t.Setenv("LESSONS_WITNESS_DRIVER_VMM", vmm)
		t.Setenv("LESSONS_WITNESS_DRIVER_REFS", refs)
		s := spec(t, string(data))
		s.Flags = append(s.Flags, "-lcuda")
		v := checkPlain(t, tk, s, "drivervmmrefs", "drivervmmrefs"+way, src)
		if !strings.Contains(v.Output, "in 100 calls") {
			t.Fatalf("the forger found no driver to call (output %q)", v.Output)
		}
		wantFailedOnlyWhenBounded(t, v, "the driver's retains and imports "+way, way == "", "cuMemRetainAllocationHandle and cuMemImportFromShareableHandle: the kernel counted 100 calls")
	}
}

// checkPlain grades the file at path under s in the plain runner, in a
// fresh folder, as the witness's tests do.
func checkPlain(t *testing.T, tk *Toolkit, s *checker.Spec, id, hash, path string) *Verdict {
	t.Helper()
	j := &Job{ID: id, Spec: s, Dir: t.TempDir(), Hash: hash, Files: []File{{Name: filepath.Base(path), Path: path}}}
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// wantFailedOnlyWhenBounded: a program that makes calls around the
// library's hooks passes where the witness only shows (or does not
// probe) what it called (bounded false), and fails with want where the
// witness bounds it; its failed checks are logged. how names the case.
func wantFailedOnlyWhenBounded(t *testing.T, v *Verdict, how string, bounded bool, want string) {
	t.Helper()
	if !bounded {
		if !v.Passed() {
			t.Errorf("%s: it fails: %+v (output %q)", how, v.Results, v.Output)
		}
		return
	}
	if v.Passed() || !failedWith(v, want) {
		t.Fatalf("%s: not failed with %q: %+v (output %q)", how, want, v.Results, v.Output)
	}
	for _, r := range v.Results {
		if !r.Pass {
			t.Logf("%s: %s", r.Name, r.Got)
		}
	}
}

// vmmRefsHooked retains an address nothing maps and imports a descriptor
// that is none, three times each, through the statistics library's hooks
// (dlsym's answers): each call refused, on a GPU too.
const vmmRefsHooked = `#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    void* d = dlopen("libcuda.so.1", RTLD_NOW);
    void* retain = dlsym(d, "cuMemRetainAllocationHandle");
    void* import = dlsym(d, "cuMemImportFromShareableHandle");
    if (retain == NULL || import == NULL) return 1;
    int calls = 0, refused = 0;
    for (int i = 0; i < 3; i++) {
        CUmemGenericAllocationHandle h = 0;
        calls++;
        if (((CUresult(*)(CUmemGenericAllocationHandle*, void*))retain)(&h, (void*)(uintptr_t)4096) != CUDA_SUCCESS) refused++;
        calls++;
        if (((CUresult(*)(CUmemGenericAllocationHandle*, void*, CUmemAllocationHandleType))import)(&h, (void*)(uintptr_t)-1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != CUDA_SUCCESS) refused++;
    }
    printf("one allocation asked for, %d calls through the hooks, %d refused\n", calls, refused);
    return 0;
}
`

// vmmHooked calls the driver's seven virtual memory functions three times
// each through the statistics library's hooks (dlsym's answers).
const vmmHooked = `#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
int main() {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    void* d = dlopen("libcuda.so.1", RTLD_NOW);
    const char* names[7] = {"cuMemAddressReserve", "cuMemCreate", "cuMemMap", "cuMemSetAccess", "cuMemUnmap", "cuMemRelease", "cuMemAddressFree"};
    void* f[7];
    for (int n = 0; n < 7; n++) if ((f[n] = dlsym(d, names[n])) == NULL) return 1;
    CUmemAllocationProp prop = {};
    CUmemAccessDesc access = {};
    int made = 0;
    for (int i = 0; i < 3; i++, made++) {
        CUdeviceptr va = 0;
        CUmemGenericAllocationHandle h = 0;
        ((CUresult(*)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long))f[0])(&va, 2 << 20, 0, 0, 0);
        ((CUresult(*)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long))f[1])(&h, 2 << 20, &prop, 0);
        ((CUresult(*)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long))f[2])(va, 2 << 20, 0, h, 0);
        ((CUresult(*)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t))f[3])(va, 2 << 20, &access, 1);
        ((CUresult(*)(CUdeviceptr, size_t))f[4])(va, 2 << 20);
        ((CUresult(*)(CUmemGenericAllocationHandle))f[5])(h);
        ((CUresult(*)(CUdeviceptr, size_t))f[6])(va, 2 << 20);
    }
    printf("one allocation asked for, virtual memory made %d through the hooks\n", made);
    return 0;
}
`

// TestHiddenRunFailuresScoreNothing grades testdata/corpus/hidden/
// hidden_forged.cu by its spec (points on the checks, three hidden runs)
// as grade does (RunAll), in the plain runner and the sandbox: honest on
// the public run, each hidden run fails by a result that is no check of
// the spec's (a record not trusted, a record the kernel's counts
// contradict where the witness is on, a run past its time limit), and the
// attempt scores nothing, as a public run's such failure makes it. Before
// round 24 RunAll gave those results checks of their own, with no points,
// and the attempt scored 25 of 25.
func TestHiddenRunFailuresScoreNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	t.Setenv("LESSONS_GPU", "Fake H200,9.0,1024")
	if w, why := OpenWitness(); w != nil {
		defer w.Close()
		tk.Witness = w
	} else {
		t.Logf("no outside witness here: %s", why)
	}
	data, err := os.ReadFile("testdata/corpus/hidden/spec.toml")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := filepath.Abs("testdata/corpus/hidden/hidden_forged.cu")
	runners := map[string]Runner{"plain": Plain{}}
	if sb, err := TempSandbox("lessons-hidden-"); err == nil {
		defer sb.Close()
		runners["sandbox"] = sb
	} else {
		t.Logf("no grading sandbox here: %v", err)
	}
	for rn, r := range runners {
		t.Run(rn, func(t *testing.T) {
			sp := spec(t, string(data))
			j := &Job{ID: "hidden", Spec: sp, Dir: t.TempDir(), Hash: "hiddenforged" + rn,
				Files: []File{{Name: "hidden_forged.cu", Path: src}}}
			b, err := Build(context.Background(), tk, r, j, 0)
			if err != nil || b.Failed != nil {
				t.Fatalf("build: %v %+v", err, b)
			}
			v, err := RunAll(context.Background(), tk, r, j, b.Prog, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"[spawned] statistics recorded by the library", "[late] ends by itself"}
			if tk.Witness != nil {
				want = append(want, "[around] "+checker.WitnessCheckName)
			}
			for _, w := range want {
				failed := false
				for _, res := range v.Results {
					failed = failed || (res.Name == w && !res.Pass)
				}
				if !failed {
					t.Errorf("no failed %q among %+v", w, v.Results)
				}
			}
			for _, res := range v.Results {
				if res.Check != nil && res.Check.Points > 0 && res.Check.Run == "" && !res.Pass {
					t.Errorf("the public run fails %q: %s", res.Name, res.Got)
				}
			}
			if got := sp.Score(v.Results); got != 0 {
				t.Errorf("the attempt scores %d of %d: a hidden run that was not trusted, not matched or did not end earned points", got, sp.Points)
			}
		})
	}
}

// TestOpenHostFnCaptured grades corpus-open/hostfn_captured.cu (round 24,
// for the GPU run): the library's host-function wrapper captured into a
// graph by a stream the library does not know is capturing, and called by
// the program itself while the kernel it covers still runs, so that a
// race on another stream is judged ordered. It skips where the forger
// forged nothing (no device: here). On a GPU it fails today if the
// forgery holds (unordered_uses 0 with "the tracker was told"); it passes
// once the library refuses it.
func TestOpenHostFnCaptured(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	src, _ := filepath.Abs("testdata/corpus-open/hostfn_captured.cu")
	j := &Job{ID: "hostfn", Spec: spec(t, "[[check]]\nexit = 0\n[[check]]\nstat = \"unordered_uses\"\nequals = 0\n"), Dir: t.TempDir(), Hash: "hostfncaptured",
		Files: []File{{Name: "hostfn_captured.cu", Path: src}}}
	v, err := Check(context.Background(), tk, Plain{}, j, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Output, "the tracker was told") {
		t.Skipf("the forger forged nothing here (output %q)", v.Output)
	}
	if v.Passed() {
		t.Fatalf("the race hidden by the captured wrapper passed: %+v", v.Results)
	}
	t.Logf("refused: %+v", v.Results)
}

// witnessedToolkit is the toolkit of a test that needs nvcc and the
// outside witness (root, or CAP_BPF and CAP_PERFMON) with a fake GPU: it
// skips where either is missing, and closes the witness when the test
// ends.
func witnessedToolkit(t *testing.T) (*Toolkit, *witness.Witness) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds with nvcc")
	}
	tk := realToolkit(t)
	t.Setenv("LESSONS_GPU", "Fake H200,9.0,1024")
	w, why := OpenWitness()
	if w == nil {
		t.Skipf("no outside witness here: %s", why)
	}
	t.Cleanup(func() { w.Close() })
	tk.Witness = w
	return tk, w
}

// TestWitnessBoundsVMMCallsMadeToFail is round 26's first lead: a call a
// hidden run's spec makes fail (fail = ["cuMemMap:2"], as vmm-growable's
// "a new chunk's map fails") is counted by the library and never made, so
// the kernel never counts it; bounded by the record's figure alone, it
// let as many calls of the same function be made at the driver's own
// entry around the hooks, unseen. The program maps twice through the hook
// (dlsym's answer; the second is the one made to fail) and once at the
// driver's own cuMemMap: the kernel counts 2, the record 2, and it
// passed. The bound now leaves out the calls made to fail.
func TestWitnessBoundsVMMCallsMadeToFail(t *testing.T) {
	tk, _ := witnessedToolkit(t)
	data, _ := os.ReadFile("testdata/corpus/corpus.toml")
	text := string(data) + "\n[[hidden_run]]\nname = \"the second map fails\"\nfail = [\"cuMemMap:2\"]\n\n[[check]]\nrun = \"the second map fails\"\nexit = 0\n"
	src := filepath.Join(t.TempDir(), "vmm_map_failed_around.cu")
	if err := os.WriteFile(src, []byte(vmmMapFailedAround), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		run    string
		around bool
	}{{"the second map fails", false}, {"the second map fails", true}, {"", false}} {
		s := spec(t, text).ForRun(tc.run)
		if tc.around {
			s.Args = []string{"around"}
		}
		v := checkPlain(t, tk, s, "vmmmapfailed", fmt.Sprintf("vmmmapfailed%q%v", tc.run, tc.around), src)
		t.Logf("run %q, around %v: %s", tc.run, tc.around, strings.TrimSpace(v.Output))
		if !strings.Contains(v.Output, "2 maps through the hook") {
			t.Fatalf("the program found no driver to call: %+v (output %q)", v.Results, v.Output)
		}
		wantFailedOnlyWhenBounded(t, v, fmt.Sprintf("run %q, a map around the hooks %v", tc.run, tc.around), tc.around, "cuMemMap: the kernel counted 2 calls")
	}
}

// vmmMapFailedAround maps twice through the statistics library's hook of
// cuMemMap and, given "around", once at the driver's own entry found in
// its symbol table (vmm_around.cu's walk): every map refused here (no
// device), the second through the hook made to fail by the run's spec
// where it names one.
const vmmMapFailedAround = `#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
static void* own;
static int visit(struct dl_phdr_info* info, size_t, void*) {
    if (strstr(info->dlpi_name, "libcuda.so") == NULL) return 0;
    const ElfW(Sym)* syms = NULL;
    const char* strs = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn)* d = (const ElfW(Dyn)*)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_SYMTAB) syms = (const ElfW(Sym)*)d->d_un.d_ptr;
            if (d->d_tag == DT_STRTAB) strs = (const char*)d->d_un.d_ptr;
        }
    }
    for (size_t k = 0; syms != NULL && strs != NULL && (const char*)&syms[k] < strs; k++)
        if (syms[k].st_value != 0 && strcmp(strs + syms[k].st_name, "cuMemMap") == 0) own = (void*)(info->dlpi_addr + syms[k].st_value);
    return 1;
}
typedef CUresult (*mapFn)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
int main(int argc, char** argv) {
    void* p = NULL;
    if (cudaMalloc(&p, 1 << 20) == cudaSuccess) cudaFree(p);
    void* d = dlopen("libcuda.so.1", RTLD_NOW);
    mapFn hooked = (mapFn)dlsym(d, "cuMemMap");
    dl_iterate_phdr(visit, NULL);
    if (hooked == NULL || own == NULL || (void*)hooked == own) return 1;
    int around = argc > 1 && strcmp(argv[1], "around") == 0;
    int r1 = hooked(0, 2 << 20, 0, 0, 0), r2 = hooked(0, 2 << 20, 0, 0, 0);
    int r3 = around ? ((mapFn)own)(0, 2 << 20, 0, 0, 0) : -1;
    printf("2 maps through the hook (%d, %d), %d around it (%d)\n", r1, r2, around, r3);
    return 0;
}
`
