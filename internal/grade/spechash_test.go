package grade

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cudalessons/lessons/internal/author"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/kernels"
)

// A grade's spec hash covers the spec, the secret spec and every file of
// the statistics library (allocstats.cu, each of its sections, timeline.h):
// a change to any one byte of any of them grades the exercise again.
func TestSpecHashCoversTheWholeLibrary(t *testing.T) {
	c, err := course.Load(coursetest.Tiny(t, []string{"pipe"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := c.Exercise("pipe")
	students := t.TempDir()
	if err := os.MkdirAll(filepath.Join(students, "ann"), 0o755); err != nil {
		t.Fatal(err)
	}
	tasks, _, err := Tasks(c, students, []string{"ann"}, []*course.Exercise{x})
	if err != nil || len(tasks) != 1 {
		t.Fatalf("Tasks: %d tasks, %v", len(tasks), err)
	}
	raw, _ := os.ReadFile(c.Path(x.Spec()))
	secret, _ := os.ReadFile(c.Path(author.SecretFile(x)))
	if want := SpecHash(raw, secret, kernels.LibrarySum()); tasks[0].SpecHash != want {
		t.Fatalf("the task's spec hash %s is not SpecHash of its spec, secret spec and the library %s", tasks[0].SpecHash, want)
	}

	files := kernels.LibraryFiles()
	if len(files) < 3 {
		t.Fatalf("the library has %d files; want allocstats.cu, its sections and timeline.h", len(files))
	}
	base := SpecHash(raw, secret, kernels.Sum(files))
	for i, f := range files {
		changed := append([]kernels.File(nil), files...)
		data := append([]byte(nil), f.Data...)
		data[len(data)/2] ^= 1
		changed[i].Data = data
		if SpecHash(raw, secret, kernels.Sum(changed)) == base {
			t.Errorf("a change to %s leaves the spec hash as it was: its grades would not run again", f.Path)
		}
	}
	if SpecHash(append(raw, ' '), secret, kernels.Sum(files)) == base || SpecHash(raw, append(secret, ' '), kernels.Sum(files)) == base {
		t.Error("a change to the spec or the secret spec leaves the spec hash as it was")
	}
}
