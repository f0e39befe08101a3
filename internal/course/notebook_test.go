package course

import (
	"fmt"
	"strings"
	"testing"
)

// A course's [notebook] table is read into Course.Notebook, Root given
// its default; a course without one has none.
func TestNotebookTable(t *testing.T) {
	c, err := Load(goodCourse(t, good))
	if err != nil || c.Notebook != nil {
		t.Fatalf("a course without [notebook]: %+v, %v", c.Notebook, err)
	}
	m := good + "\n[notebook]\nbinary = \"https://github.com/cudalessons/lessons/releases/download/v1.4.0/lessons-linux-amd64\"\nrepository = \"https://github.com/me/course\"\nref = \"v2026.1\"\ndir = \"course\"\n"
	c, err = Load(goodCourse(t, m))
	if err != nil {
		t.Fatal(err)
	}
	want := Notebook{Binary: "https://github.com/cudalessons/lessons/releases/download/v1.4.0/lessons-linux-amd64", Repository: "https://github.com/me/course", Ref: "v2026.1", Dir: "course", Root: DefaultNotebookRoot}
	if *c.Notebook != want {
		t.Fatalf("notebook = %+v, want %+v", *c.Notebook, want)
	}
	if c.Notebook.Course() != "/content/lessons/course/course" || c.Notebook.Lessons() != "/content/lessons/bin/lessons" {
		t.Errorf("paths: %s %s", c.Notebook.Course(), c.Notebook.Lessons())
	}
}

// Each wrong [notebook] is refused at its line, saying what to write; a
// value a shell or IPython would read as more than a string never loads.
func TestNotebookRefused(t *testing.T) {
	base := good + "\n[notebook]\n" // the table's line is 16
	cases := []struct {
		name, table, want string
		line              int
	}{
		{"no lessons", "repository = \"https://x.example/c\"\n", "does not say where the notebook gets lessons", 16},
		{"both", "binary = \"https://x.example/l\"\ngo_install = \"example.com/l@v1\"\nrepository = \"https://x.example/c\"\n", "gives both binary and go_install", 18},
		{"no repository", "binary = \"https://x.example/l\"\n", "does not say where the course's repository is", 16},
		{"quote", "binary = \"https://x.example/l';rm -rf ~;'\"\nrepository = \"https://x.example/c\"\n", "holds a character", 17},
		{"dollar", "binary = \"https://x.example/$(id)\"\nrepository = \"https://x.example/c\"\n", "holds a character", 17},
		{"scheme", "binary = \"ftp://x.example/l\"\nrepository = \"https://x.example/c\"\n", "is not an https, http or file URL", 17},
		{"no host", "binary = \"https:///l\"\nrepository = \"https://x.example/c\"\n", "names no host", 17},
		{"module", "go_install = \"example.com/l\"\nrepository = \"https://x.example/c\"\n", "is not MODULE/PATH@VERSION", 17},
		{"module flag", "go_install = \"-toolexec=x@v1\"\nrepository = \"https://x.example/c\"\n", "is not MODULE/PATH@VERSION", 17},
		{"ssh", "binary = \"https://x.example/l\"\nrepository = \"git@github.com:me/c.git\"\n", "is reached over ssh", 18},
		{"ref flag", "binary = \"https://x.example/l\"\nrepository = \"https://x.example/c\"\nref = \"--upload-pack=x\"\n", "is not a branch or tag name", 19},
		{"ref dots", "binary = \"https://x.example/l\"\nrepository = \"https://x.example/c\"\nref = \"a..b\"\n", "is not a branch or tag name", 19},
		{"dir climbs", "binary = \"https://x.example/l\"\nrepository = \"https://x.example/c\"\ndir = \"../x\"\n", "is not a plain folder", 19},
		{"root relative", "binary = \"https://x.example/l\"\nrepository = \"https://x.example/c\"\nroot = \"content\"\n", "is not a plain absolute folder", 19},
		{"root ipython", "binary = \"https://x.example/l\"\nrepository = \"https://x.example/c\"\nroot = \"/content/{os.system('id')}\"\n", "is not a plain absolute folder", 19},
		{"unknown", "binary = \"https://x.example/l\"\nrepository = \"https://x.example/c\"\nbranch = \"main\"\n", "unknown", 19},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(goodCourse(t, base+tc.table))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if at := fmt.Sprintf("course.toml:%d:", tc.line); !strings.Contains(err.Error(), at) {
				t.Errorf("err = %v, want it at %s", err, at)
			}
		})
	}
}

// FuzzNotebookTable: whatever [notebook] a course.toml holds, a table
// that loads holds only values that are safe where the export writes
// them (between single quotes in bash, and as they are on ! lines).
func FuzzNotebookTable(f *testing.F) {
	f.Add("https://x.example/l", "", "https://x.example/c", "main", "", "")
	f.Add("", "example.com/l/cmd/lessons@v1.2.3", "file:///srv/c.git", "", "course", "/kaggle/working/lessons")
	f.Add("https://x.example/l'", "", "https://x.example/c", "-x", "../d", "/")
	f.Fuzz(func(t *testing.T, binary, goInstall, repo, ref, dir, root string) {
		n, bad := checkNotebook(ManifestNotebook{Binary: binary, GoInstall: goInstall, Repository: repo, Ref: ref, Dir: dir, Root: root})
		if len(bad) > 0 || n == nil {
			return
		}
		for _, v := range []string{n.Binary, n.GoInstall, n.Repository, n.Ref, n.Dir, n.Root} {
			if strings.ContainsAny(v, "'\"`$\\{} \t\n\r") {
				t.Fatalf("accepted %q", v)
			}
			if strings.HasPrefix(v, "-") {
				t.Fatalf("accepted a flag %q", v)
			}
		}
		if !strings.HasPrefix(n.Root, "/") || strings.Contains(n.Course(), "..") {
			t.Fatalf("root %q, course %q", n.Root, n.Course())
		}
	})
}
