package exercise

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestGPUPrivateRuntimes grades, on a GPU, the forgers that do their work
// through a second copy of the CUDA runtime and unload it before the end:
// other_runtime.cu (a runtime that was on the machine, a Python wheel's or
// another toolkit's, by dlopen) and the corpus's dlmopen_unload.cu (the
// program's own runtime in a namespace of its own) with a real driver.
// Each must fail, by the library's count of copies and namespaces (which
// needs no witness) or by the witness.
func TestGPUPrivateRuntimes(t *testing.T) {
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
	private, _ := filepath.Abs("testdata/corpus/private_runtime.h")
	other := otherRuntime(t)
	for _, file := range []string{"testdata/gpuforgers/other_runtime.cu", "testdata/corpus/dlmopen_unload.cu"} {
		name := strings.TrimSuffix(filepath.Base(file), ".cu")
		t.Run(name, func(t *testing.T) {
			var env []string
			if name == "other_runtime" {
				if other == "" {
					t.Skip("no second copy of the CUDA runtime on this machine")
				}
				t.Logf("the other runtime: %s", other)
				env = []string{"OTHER_RUNTIME=" + other}
			}
			src, _ := filepath.Abs(file)
			s := spec(t, string(data))
			s.Flags = append(s.Flags, "-ldl")
			j := &Job{ID: "corpus", Spec: s, Dir: t.TempDir(), Hash: "private-" + name, Env: env,
				Files: []File{{Name: filepath.Base(file), Path: src}, {Name: "private_runtime.h", Path: private}}}
			v, err := Check(context.Background(), tk, Plain{}, j, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("output %q", v.Output)
			for _, r := range v.Results {
				t.Logf("%s: pass %v, got %s", r.Name, r.Pass, r.Got)
			}
			if v.Passed() {
				t.Fatalf("%s passed on the GPU", name)
			}
			want, _ := directives(t, file)
			for _, w := range want {
				if failedWith(v, w) {
					t.Logf("fails with %q", w)
					return
				}
			}
			t.Errorf("fails, but not with %q", want)
		})
	}
}

// otherRuntime finds a libcudart on the machine that is not the file the
// toolkit's programs load (another inode): a Python wheel's (the system's
// site-packages, or a virtualenv's under /opt, as the GPU machine's torch
// is), or another toolkit's; "" where there is none.
func otherRuntime(t *testing.T) string {
	var own []os.FileInfo
	for _, d := range []string{"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/lib/x86_64-linux-gnu"} {
		if m, _ := filepath.Glob(filepath.Join(d, "libcudart.so*")); len(m) > 0 {
			for _, p := range m {
				if fi, err := os.Stat(p); err == nil {
					own = append(own, fi)
				}
			}
		}
	}
	same := func(fi os.FileInfo) bool {
		for _, o := range own {
			if os.SameFile(o, fi) {
				return true
			}
		}
		return false
	}
	roots, _ := filepath.Glob("/usr/local/lib/python3*/dist-packages")
	more, _ := filepath.Glob("/usr/lib/python3*/dist-packages")
	sites, _ := filepath.Glob("/usr/local/lib/python3*/site-packages")
	venvs, _ := filepath.Glob("/opt/*/.venv/lib/python3*/site-packages")
	optSites, _ := filepath.Glob("/opt/*/lib/python3*/site-packages")
	others, _ := filepath.Glob("/usr/local/cuda-*/lib64")
	for _, more := range [][]string{more, sites, venvs, optSites, others} {
		roots = append(roots, more...)
	}
	found := ""
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if found != "" {
				return filepath.SkipAll
			}
			if err != nil {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasPrefix(d.Name(), "libcudart.so") {
				return nil
			}
			fi, err := os.Stat(p)
			if err == nil && fi.Mode().IsRegular() && !same(fi) {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Size > 0 {
					found = p
				}
			}
			return nil
		})
	}
	return found
}
