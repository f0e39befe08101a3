package course

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A course is someone else's repository: every path its manifest names
// must stay inside it, or the course does not load, with the line.
func TestHostileManifestRefused(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, ".bashrc"), []byte("keep"), 0o644)
	os.WriteFile(filepath.Join(outside, "day001-x.md"), []byte("# X\n"), 0o644)
	cases := []struct {
		name, old, new, want string
		line                 int
	}{
		{"id ..", `id = "pool"`, `id = "../../../elsewhere"`, `exercise id "../../../elsewhere" is not a plain name`, 10},
		{"id slash", `id = "pool"`, `id = "a/b"`, `is not a plain name`, 10},
		{"id dot", `id = "pool"`, `id = ".."`, `is not a plain name`, 10},
		{"id absolute", `id = "pool"`, `id = "/tmp/x"`, `is not a plain name`, 10},
		{"student ..", `student = "exercises/pool.cu"`, `student = "../../.bashrc"`, `student file ../../.bashrc is not inside the course: it climbs out`, 12},
		{"student absolute", `student = "exercises/pool.cu"`, `student = "OUT/.bashrc"`, `is an absolute path`, 12},
		{"student inner ..", `student = "exercises/pool.cu"`, `student = "exercises/../../x.cu"`, `climbs out`, 12},
		{"solution ..", `solution = "solutions/pool.cu"`, `solution = "../solutions/pool.cu"`, `solution file ../solutions/pool.cu is not inside`, 13},
		{"lesson ..", `file = "lessons/day087-stream-ordered.md"`, `file = "../day087-stream-ordered.md"`, `lesson file ../day087-stream-ordered.md is not inside`, 7},
		{"lesson absolute", `file = "lessons/day087-stream-ordered.md"`, `file = "OUT/day001-x.md"`, `is an absolute path`, 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := strings.Replace(good, tc.old, strings.ReplaceAll(tc.new, "OUT", outside), 1)
			_, err := Load(goodCourse(t, m))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if want := "course.toml:" + strconv.Itoa(tc.line) + ":"; !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v, want it at %s", err, want)
			}
		})
	}
}

// A link committed in the course that leads out of it, absolute or
// relative, in any place of a named path, is refused as .. is.
func TestHostileLinksRefused(t *testing.T) {
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(outside, "ex"), 0o755)
	os.WriteFile(filepath.Join(outside, "ex", "pool.cu"), []byte("secret"), 0o644)
	for _, kind := range []string{"absolute", "relative"} {
		for _, at := range []string{"exercises", "exercises/pool.cu"} {
			t.Run(kind+"/"+at, func(t *testing.T) {
				root := goodCourse(t, good)
				target := filepath.Join(outside, "ex")
				if at == "exercises/pool.cu" {
					target = filepath.Join(target, "pool.cu")
				}
				if kind == "relative" {
					target, _ = filepath.Rel(filepath.Dir(filepath.Join(root, at)), target)
				}
				os.RemoveAll(filepath.Join(root, at))
				if err := os.Symlink(target, filepath.Join(root, at)); err != nil {
					t.Fatal(err)
				}
				_, err := Load(root)
				if err == nil || !strings.Contains(err.Error(), "leads out of the folder") || !strings.Contains(err.Error(), "course.toml:12:") {
					t.Fatalf("err = %v", err)
				}
			})
		}
	}
}

// A link inside the course is followed.
func TestLinkInsideAllowed(t *testing.T) {
	root := goodCourse(t, good)
	os.Rename(filepath.Join(root, "exercises/pool.cu"), filepath.Join(root, "exercises/real.cu"))
	os.Symlink("real.cu", filepath.Join(root, "exercises/pool.cu"))
	if _, err := Load(root); err != nil {
		t.Fatal(err)
	}
}

// A course is a folder someone else made (a tarball unpacked): a file it
// names may be a FIFO, which a read waits on for ever (lessons serve,
// verify and grade hung at start), or far larger than any lesson (a
// sparse file of terabytes, read whole before its size was checked). The
// course's files are read only if they are regular files of a sane size.
func TestHostileCourseFilesNotWaitedOn(t *testing.T) {
	for _, name := range []string{"course.toml", "lessons/day068-memory-pools.md"} {
		t.Run(name, func(t *testing.T) {
			root := goodCourse(t, good)
			p := filepath.Join(root, name)
			var c *Course
			if name != "course.toml" {
				var err error
				if c, err = Load(root); err != nil {
					t.Fatal(err)
				}
			}
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { // a writer that closes: a reader left waiting ends
				if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
					f.Close()
				}
			})
			done := make(chan error, 1)
			go func() {
				var err error
				if c == nil {
					_, err = Load(root)
				} else {
					e, _ := c.FindEntry("68")
					_, err = c.Parse(e)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("a FIFO should be refused by name: %v", err)
				}
			case <-time.After(20 * time.Second): // a hang's guard, not a timing
				t.Fatalf("still reading the FIFO %s", name)
			}
		})
	}
}
