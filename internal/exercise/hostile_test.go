package exercise

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/course"
)

// TestHostileSubmissions grades each of testdata/hostile/*.cu as day 70's
// async-pipeline, as lessons grade does (secret checks and hidden runs
// included), and wants each to fail with its reason while the honest
// solution passes. It needs a GPU and nvcc; it skips without them, as on
// CI.
func TestHostileSubmissions(t *testing.T) {
	info, err := gpu.Driver{}.Probe(false)
	if err != nil || len(info.Devices) == 0 {
		t.Skipf("needs a GPU: %v", err)
	}
	tk := realToolkit(t)
	tk.NVCC.Arch = info.Devices[0].Arch()
	root, _ := filepath.Abs("../..")
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.Exercise("async-pipeline")
	if err != nil {
		t.Fatal(err)
	}
	grade := func(t *testing.T, file string, flags []string) *Verdict {
		j, err := NewJob(c, x, file)
		if err != nil {
			t.Fatal(err)
		}
		// The job's own folder, inside the course: a temporary one
		// outside it is refused (it climbs out of the course).
		j.Spec.Flags = append(j.Spec.Flags, flags...)
		b, err := Build(context.Background(), tk, Plain{}, j, 0)
		if err != nil {
			t.Fatal(err)
		}
		if b.Failed != nil {
			t.Fatalf("%s does not build: %+v\n%s", file, b.Failed, b.Log)
		}
		v, err := RunAll(context.Background(), tk, Plain{}, j, b.Prog, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	t.Run("solution", func(t *testing.T) {
		v := grade(t, c.Path(x.Solution), nil)
		if !v.Passed() {
			t.Errorf("the honest solution fails: %+v\n%s", v.Results, v.Output)
		}
	})
	files, _ := filepath.Glob("testdata/hostile/*.cu")
	for _, file := range files {
		want, flags := directives(t, file)
		t.Run(strings.TrimSuffix(filepath.Base(file), ".cu"), func(t *testing.T) {
			abs, _ := filepath.Abs(file)
			v := grade(t, abs, flags)
			if v.Passed() {
				t.Fatalf("passed: %s", v.Output)
			}
			for _, w := range want {
				if failedWith(v, w) {
					t.Logf("fails with %q", w)
					return
				}
			}
			var got []string
			for _, r := range v.Results {
				if !r.Pass {
					got = append(got, r.Name+": "+r.Got)
				}
			}
			t.Errorf("fails, but not with %q:\n%s", want, strings.Join(got, "\n"))
		})
	}
}

// directives reads a hostile file's "// want: A|B" and "// flags: ...".
func directives(t *testing.T, file string) (want, flags []string) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if py, ok := strings.CutPrefix(line, "# "); ok && strings.HasSuffix(file, ".py") {
			line = "// " + py
		}
		if w, ok := strings.CutPrefix(line, "// want: "); ok {
			want = strings.Split(w, "|")
		}
		if fl, ok := strings.CutPrefix(line, "// flags: "); ok {
			flags = strings.Fields(fl)
		}
	}
	if len(want) == 0 {
		t.Fatalf("%s has no // want: line", file)
	}
	return want, flags
}

// TestDiskFilledByAnotherIsNoCompileError: a classmate's run that fills
// the disk (files of the size limit, one after another) made the builds
// beside it fail, and each was graded as the student's compile error,
// kept on the next grade run. A build that fails for want of disk is the
// machine's: an error, graded again.
func TestDiskFilledByAnotherIsNoCompileError(t *testing.T) {
	s := spec(t, "[[check]]\nexit = 0\n")
	t.Run("nvcc says so while the disk was full", func(t *testing.T) {
		// The disk was full while nvcc ran and had room again when it
		// was over (a classmate's run ended): the build is made again.
		tk := toolkit(t)
		once := filepath.Join(t.TempDir(), "once")
		os.WriteFile(once, nil, 0o644)
		t.Setenv("FAKE_NVCC_SAY", "/usr/include/x86_64-linux-gnu/bits/types.h:56: error while writing generated C++ file: No space left on device")
		t.Setenv("FAKE_NVCC_FAIL_ONCE", once)
		b, err := Build(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: echo hi\n"), 0)
		if err != nil || b.Failed != nil || b.Prog == "" {
			t.Fatalf("a build that found no space once was not built again: %v %+v", err, b)
		}
	})
	// Door 5 (issue 38): the student's own file says the disk is full.
	// Only the file system says so: a build that says it again with room
	// to spare is the file's compile error, graded 0, never "could not
	// be graded" at every grade.
	t.Run("the file says so", func(t *testing.T) {
		for _, words := range []string{"No space left on device", "Disk quota exceeded"} {
			tk := toolkit(t)
			b, err := Build(context.Background(), tk, Plain{}, job(t, s, "x.cu", "#error "+words+"\n// fake: echo hi\n"), 0)
			if err != nil || b.Failed == nil {
				t.Fatalf("%s: a file that prints it escaped its compile error: %v %+v", words, err, b)
			}
			if !strings.Contains(b.Failed[0].Got, "compile error") {
				t.Errorf("%s: %+v", words, b.Failed[0])
			}
		}
	})
	t.Run("the disk is full", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("mounts a small file system: needs root")
		}
		small := t.TempDir()
		if err := unix.Mount("tmpfs", small, "tmpfs", 0, "size=4m"); err != nil {
			t.Skipf("no tmpfs here: %v", err)
		}
		defer unix.Unmount(small, unix.MNT_DETACH)
		tk := toolkit(t)
		j := job(t, s, "x.cu", "// fake: echo hi\n")
		j.Dir = filepath.Join(small, "ws")
		fill, _ := os.Create(filepath.Join(small, "classmate"))
		fill.Write(make([]byte, 4<<20))
		fill.Close()
		t.Setenv("FAKE_NVCC_FAIL", "1") // nvcc fails and says nothing of why
		b, err := Build(context.Background(), tk, Plain{}, j, 0)
		if err == nil {
			t.Fatalf("a build on a full disk was judged the file's: %+v", b.Failed)
		}
	})
	// Door 5, the attack of our own: a file whose build fills its own
	// file system (nvcc's intermediates of a file that never stops
	// growing) is the file's, not the machine's.
	t.Run("the build filled the disk itself", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("mounts a small file system: needs root")
		}
		small := t.TempDir()
		if err := unix.Mount("tmpfs", small, "tmpfs", 0, "size=300m,nr_inodes=1100"); err != nil {
			t.Skipf("no tmpfs here: %v", err)
		}
		defer unix.Unmount(small, unix.MNT_DETACH)
		tk := toolkit(t)
		j := job(t, s, "x.cu", "// fake-fill\n")
		j.Dir = filepath.Join(small, "ws")
		b, err := Build(context.Background(), tk, Plain{}, j, 0)
		if err != nil || b.Failed == nil {
			t.Fatalf("a build that filled its own disk was not judged the file's: %v %+v", err, b)
		}
	})
	t.Run("a compile error is still one", func(t *testing.T) {
		tk := toolkit(t)
		t.Setenv("FAKE_NVCC_FAIL", "1")
		b, err := Build(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: echo hi\n"), 0)
		if err != nil || b.Failed == nil {
			t.Errorf("nvcc failing with room to spare is the file's: %v %+v", err, b)
		}
	})
}
