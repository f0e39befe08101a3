package exercise

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cudalessons/lessons/internal/suspect"
)

// TestCorpus grades each forger of testdata/corpus against corpus.toml,
// with the real statistics library, as the tests' user (root on CI) in
// the plain runner and as the sandbox's own user in the grading sandbox,
// and wants each to fail with its reason while honest.cu passes. The
// forgers make no CUDA call, so no GPU is needed: what they forge is the
// record's, not the GPU's.
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
	// The outside witness, where BPF may be loaded here (root): what
	// the library cannot see, it counts.
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
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".cu")
		var want []string
		if name != "honest" {
			want, _ = directives(t, file)
		}
		for rn, r := range runners {
			t.Run(name+"/"+rn, func(t *testing.T) {
				src, _ := filepath.Abs(file)
				j := &Job{ID: "corpus", Spec: spec(t, string(data)), Dir: t.TempDir(), Hash: name + rn,
					Files: []File{{Name: filepath.Base(file), Path: src}, {Name: "forge.h", Path: forge}, {Name: "patch.h", Path: patch}}}
				v, err := Check(context.Background(), tk, r, j, nil)
				if err != nil {
					t.Fatal(err)
				}
				if name == "honest" {
					if !v.Passed() {
						t.Fatalf("the honest program fails: %+v (output %q)", v.Results, v.Output)
					}
					return
				}
				if v.Passed() && !(tk.Witness == nil && needsWitness(t, file)) {
					t.Fatalf("the forger passed: %+v (output %q)", v.Results, v.Output)
				}
				for _, w := range want {
					if failedWith(v, w) {
						t.Logf("fails with %q", w)
						return
					}
				}
				if tk.Witness == nil && needsWitness(t, file) {
					// Without the witness, the source scan names it for review.
					t.Logf("without the witness it passes: %v", v.Passed())
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
		if sc.Text() == "// needs: witness" {
			return true
		}
	}
	return false
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
	if !strings.Contains(string(out), "--- PASS: TestCorpus/honest/sandbox") {
		t.Errorf("the grading sandbox did not run as nobody")
	}
}
