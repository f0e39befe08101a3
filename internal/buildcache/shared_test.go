package buildcache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readIn(dir string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }
}

// A shared key is the files and flags a clean build sees, and the
// variables that change what nvcc does: a byte of a header, a flag or
// CPATH changes it; a file beside them that nothing includes does not.
func TestSharedKey(t *testing.T) {
	comp := Compiler{Path: "/usr/local/cuda/bin/nvcc", Version: "13.0.88", Arch: "sm_90"}
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "inc"), 0o755)
	os.WriteFile(filepath.Join(ws, "a.cu"), []byte("#include \"inc/u.h\"\n#include <cstdio>\n#include \"cuda_runtime.h\"\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "inc", "u.h"), []byte("#include \"v.h\"\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "inc", "v.h"), []byte("// v\n"), 0o644)
	env := []string{"PATH=/usr/bin:/bin"}
	key := func(args []string, env []string) string {
		t.Helper()
		k, files, err := SharedKey(comp, Parse(args, comp.Arch), env, readIn(ws))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 3 || files["inc/v.h"] == nil {
			t.Fatalf("files: %v", files)
		}
		return k
	}
	args := []string{"-o", "a", "a.cu"}
	k0 := key(args, env)
	os.WriteFile(filepath.Join(ws, "b.h"), []byte("not included"), 0o644)
	if key(args, env) != k0 {
		t.Error("a file nothing includes changed the key")
	}
	if key([]string{"-o", "b", "a.cu"}, env) != k0 {
		t.Error("the output's name changed the key")
	}
	for what, k := range map[string]string{
		"-O3":   key([]string{"-O3", "-o", "a", "a.cu"}, env),
		"CPATH": key(args, append(env, "CPATH=.")),
		"PATH":  key(args, []string{"PATH=" + t.TempDir()}),
	} {
		if k == k0 {
			t.Errorf("%s did not change the key", what)
		}
	}
	os.WriteFile(filepath.Join(ws, "inc", "v.h"), []byte("// w\n"), 0o644)
	if key(args, env) == k0 {
		t.Error("a header's change did not change the key")
	}
	for _, args := range [][]string{
		{"-I.", "-o", "a", "a.cu"}, {"-o", "a", "a.cu", "-L.", "-lx"}, {"-o", "a", "a.cu", "x.o"},
		{"-o", "../a", "a.cu"}, {"-o", "a", "/tmp/a.cu"}, {"-ccbin", "./gcc", "-o", "a", "a.cu"},
		{"-Xcompiler", "-include/x", "-o", "a", "a.cu"}, {"--options-file", "f", "-o", "a", "a.cu"},
	} {
		_, _, err := SharedKey(comp, Parse(args, comp.Arch), env, readIn(ws))
		if ns := (*NotSharedError)(nil); !errors.As(err, &ns) {
			t.Errorf("%q: %v, want it not shared", args, err)
		}
	}
}

// Whatever a cell's command line and source say, a shared build's files
// and its output stay inside its folder.
func FuzzSharedKey(f *testing.F) {
	f.Add("-o a a.cu", "#include \"u.h\"\n#include <cstdio>\n")
	f.Add("-arch sm_90 -O3 -o a a.cu -lcuda", "#include \"../x.h\"\n")
	f.Add("-o ../a a.cu", "#include </etc/passwd>\n")
	f.Add("-Dx=1 -gencode=arch=compute_90,code=sm_90 a.cu -o a", "#  include \"sub/../u.h\"\n")
	comp := Compiler{Path: "/usr/bin/nvcc", Version: "13.0", Arch: "sm_90"}
	f.Fuzz(func(t *testing.T, line, source string) {
		cmd := Parse(strings.Fields(line), comp.Arch)
		read := func(name string) ([]byte, error) {
			if !filepath.IsLocal(name) {
				t.Fatalf("read %q, outside the folder", name)
			}
			if strings.HasSuffix(name, ".h") && name != "u.h" {
				return nil, fs.ErrNotExist
			}
			return []byte(source), nil
		}
		_, files, err := SharedKey(comp, cmd, nil, read)
		if err != nil {
			return
		}
		if !filepath.IsLocal(cmd.Output) {
			t.Errorf("output %q outside the folder", cmd.Output)
		}
		for name := range files {
			if !filepath.IsLocal(name) {
				t.Errorf("file %q outside the folder", name)
			}
		}
	})
}
