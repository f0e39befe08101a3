package course

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write makes a course in a temporary folder from name/content pairs.
func write(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const good = `title = "T"

[[lesson]]
file = "lessons/day068-memory-pools.md"

[[lesson]]
file = "lessons/day087-stream-ordered.md"

[[exercise]]
id = "pool"
lesson = "68"
student = "exercises/pool.cu"
solution = "solutions/pool.cu"
hint = "h"
`

func goodCourse(t testing.TB, manifest string) string {
	return write(t, map[string]string{
		"course.toml":                      manifest,
		"lessons/day068-memory-pools.md":   "# Pools\n",
		"lessons/day087-stream-ordered.md": "# Streams\n",
		"exercises/pool.cu":                "int main(){}\n",
		"solutions/pool.cu":                "int main(){}\n",
	})
}

func TestLoad(t *testing.T) {
	c, err := Load(goodCourse(t, good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "T" || len(c.Lessons) != 2 || len(c.Exercises) != 1 {
		t.Fatalf("course = %+v", c)
	}
	if e := c.Lessons[0]; e.Day != 68 || e.Slug != "memory-pools" || len(e.Exercises) != 1 || e.Exercises[0].ID != "pool" {
		t.Errorf("lesson 0 = %+v", e)
	}
	prev, next := c.Neighbours(c.Lessons[1])
	if prev != c.Lessons[0] || next != nil {
		t.Errorf("neighbours of day 87 = %v, %v", prev, next)
	}
}

func TestFindEntry(t *testing.T) {
	c, err := Load(goodCourse(t, good))
	if err != nil {
		t.Fatal(err)
	}
	for q, day := range map[string]int{
		"87": 87, "087": 87, "day087": 87, "Day87": 87, "stream-ordered": 87, "day087-stream-ordered": 87,
		"stream": 87, "memory": 68, "day068-memory-pools.md": 68,
	} {
		e, err := c.FindEntry(q)
		if err != nil || e.Day != day {
			t.Errorf("FindEntry(%q) = %v, %v; want day %d", q, e, err, day)
		}
	}
	for q, want := range map[string]string{
		"99":     "no lesson for day 99 (lessons are: 68 memory-pools, 87 stream-ordered)",
		"o":      `"o" matches 2 lessons: day068-memory-pools, day087-stream-ordered; say which, by its day (68) or its whole name`,
		"nosuch": `no lesson matches "nosuch"`,
	} {
		_, err := c.FindEntry(q)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("FindEntry(%q) error = %v, want %s", q, err, want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		manifest string
		want     []string
	}{
		"missing lesson file": {
			strings.Replace(good, "day087-stream-ordered.md", "day090-gone.md", 1),
			[]string{"course.toml:7: lesson file lessons/day090-gone.md does not exist"},
		},
		"duplicate id": {
			good + "\n[[exercise]]\nid = \"pool\"\nlesson = \"87\"\nstudent = \"exercises/pool.cu\"\nsolution = \"solutions/pool.cu\"\n",
			[]string{`course.toml:17: exercise id "pool" is used twice (first at line 10)`},
		},
		"missing student file": {
			strings.Replace(good, "exercises/pool.cu", "exercises/nope.cu", 1),
			[]string{"course.toml:12: exercise pool: student file exercises/nope.cu does not exist"},
		},
		"unknown lesson": {
			strings.Replace(good, `lesson = "68"`, `lesson = "42"`, 1),
			[]string{"course.toml:11: exercise pool: no lesson for day 42"},
		},
		"bad file name": {
			strings.Replace(good, "day068-memory-pools.md", "pools.md", 1),
			[]string{"course.toml:4: lesson file lessons/pools.md is not named dayNNN-slug.md"},
		},
		"unknown key": {
			strings.Replace(good, `hint = "h"`, `hnit = "h"`, 1),
			[]string{`course.toml:14: unknown key "exercise.hnit"`},
		},
		"bad toml": {
			strings.Replace(good, `title = "T"`, `title = "T`, 1),
			[]string{"course.toml:1: cannot read course.toml: toml:"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := goodCourse(t, tc.manifest)
			_, err := Load(dir)
			if err == nil {
				t.Fatal("no error")
			}
			msg := strings.ReplaceAll(err.Error(), filepath.Join(dir, "")+string(filepath.Separator), "")
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error = %s\nwant it to contain %s", msg, w)
				}
			}
		})
	}
}

func TestFind(t *testing.T) {
	dir := goodCourse(t, good)
	sub := filepath.Join(dir, "exercises")
	got, err := Find(sub)
	if err != nil || got != dir {
		t.Errorf("Find(%s) = %s, %v; want %s", sub, got, err, dir)
	}
	if _, err := Find(t.TempDir()); err == nil || !strings.Contains(err.Error(), "pass --course DIR") {
		t.Errorf("Find outside a course: %v", err)
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("title = 1\n[[lesson]]\nfile = []\n"))
	f.Add([]byte("[[exercise]]\nid = \"a\"\n[[exercise]]\nid = \"a\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("course.toml", data)
		if err == nil && m == nil {
			t.Fatal("nil manifest without an error")
		}
		if err != nil && !strings.HasPrefix(err.Error(), "course.toml") {
			t.Fatalf("error does not name the file: %v", err)
		}
		lines := strings.Count(string(data), "\n") + 1
		for i := range 3 {
			if l := LineOf(data, "exercise", i, "id"); l < 0 || l > lines {
				t.Fatalf("lineOf = %d of %d lines", l, lines)
			}
		}
	})
}
