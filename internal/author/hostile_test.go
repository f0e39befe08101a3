package author

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A student file that leads out of the course, by name or by a link on
// its way, is never written by lessons generate, even with --force and a
// generated.sum that vouches for what is there.
func TestGenerateStaysInsideTheCourse(t *testing.T) {
	for _, tc := range []struct{ name, student, link string }{
		{"dotdot", "../outside/.bashrc", ""},
		{"absolute", "OUT/.bashrc", ""},
		{"link absolute", "exercises/pipe.cu", "abs"},
		{"link relative", "exercises/pipe.cu", "rel"},
		{"link last", "exercises/pipe.cu", "last"},
	} {
		for _, force := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				c := tinyCourse(t, pipeline)
				outside := filepath.Join(filepath.Dir(c.Root), "outside")
				os.MkdirAll(outside, 0o755)
				victim := filepath.Join(outside, ".bashrc")
				os.WriteFile(victim, []byte("keep"), 0o644)
				os.WriteFile(filepath.Join(outside, "pipe.cu"), []byte("keep"), 0o644)
				student := strings.ReplaceAll(tc.student, "OUT", outside)
				ex := filepath.Join(c.Root, "exercises")
				switch tc.link {
				case "abs":
					os.RemoveAll(ex)
					os.Symlink(outside, ex)
				case "rel":
					os.RemoveAll(ex)
					os.Symlink("../outside", ex)
				case "last":
					os.Remove(filepath.Join(ex, "pipe.cu"))
					os.Symlink(filepath.Join(outside, "pipe.cu"), filepath.Join(ex, "pipe.cu"))
				}
				c.Exercises[0].Student = student
				// generated.sum says what is there was written by generate.
				sums := sum([]byte("keep")) + "  " + student + "\n"
				os.WriteFile(c.Path(SumFile), []byte(sums), 0o644)
				_, err := Generate(c, Options{Force: force})
				for _, f := range []string{victim, filepath.Join(outside, "pipe.cu")} {
					if data, _ := os.ReadFile(f); string(data) != "keep" {
						t.Errorf("%s = %q: written outside the course", f, data)
					}
				}
				if tc.link == "last" {
					// The link itself is replaced by the student file, as a
					// rename does; what it pointed to is untouched.
					return
				}
				if err == nil {
					t.Errorf("no error")
				}
			})
		}
	}
}

func TestGeneratedSumOutsideRefused(t *testing.T) {
	c := tinyCourse(t, pipeline)
	os.WriteFile(c.Path(SumFile), []byte(strings.Repeat("a", 64)+"  ../../.bashrc\n"), 0o644)
	_, err := Generate(c, Options{})
	if err == nil || !strings.Contains(err.Error(), "generated.sum:1: ../../.bashrc is not a file of the course") {
		t.Fatalf("err = %v", err)
	}
}
