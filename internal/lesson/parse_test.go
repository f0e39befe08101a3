package lesson

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected output of case files")

// dump writes cells and errors in the form the case files expect.
func dump(l *Lesson, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\ndialect: %s\n", l.Title, l.Dialect)
	for _, c := range l.Cells {
		fmt.Fprintf(&b, "L%d %s", c.Line, c.Kind)
		if c.Number > 0 {
			fmt.Fprintf(&b, " [%d]", c.Number)
		}
		if c.Lang != "" {
			fmt.Fprintf(&b, " lang=%s", c.Lang)
		}
		if c.Name != "" {
			fmt.Fprintf(&b, " name=%s", c.Name)
		}
		if c.Label != "" {
			fmt.Fprintf(&b, " label=%q", c.Label)
		}
		b.WriteByte('\n')
		for _, line := range strings.Split(strings.TrimRight(c.Text, "\n"), "\n") {
			fmt.Fprintf(&b, "  |%s\n", line)
		}
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", strings.ReplaceAll(w.Error(), "\n\t", " / "))
	}
	for _, e := range AsErrors(err) {
		fmt.Fprintf(&b, "error: %s\n", strings.ReplaceAll(e.Error(), "\n\t", " / "))
	}
	return b.String()
}

// TestCases parses each testdata/cases/*.txtar's input.md and compares the
// cells with its cells section. Run one case alone with -run TestCases/NAME.
func TestCases(t *testing.T) {
	files, _ := filepath.Glob("testdata/cases/*.txtar")
	if len(files) == 0 {
		t.Fatal("no case files")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var input []byte
			want, wantIdx := "", -1
			for i, f := range ar.Files {
				switch f.Name {
				case "input.md":
					input = f.Data
				case "cells":
					want, wantIdx = string(f.Data), i
				}
			}
			l, perr := Parse("input.md", input)
			got := dump(l, perr)
			if *update {
				if wantIdx < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "cells"})
					wantIdx = len(ar.Files) - 1
				}
				ar.Files[wantIdx].Data = []byte(got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("cells differ (go test -run 'TestCases/%s' -update to accept)\n--- got\n%s--- want\n%s", name, got, want)
			}
		})
	}
}

func seed(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "seeds", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("seed documents not found beside the repository (%v)", err)
	}
	return p
}

// writefileBodies cuts a notebook export by hand: the text between each
// %%writefile line and the next In [ ]: marker, trailing blank lines dropped.
func writefileBodies(src string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "%%writefile ") {
			continue
		}
		name := strings.TrimSpace(strings.TrimPrefix(l, "%%writefile "))
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "In [") {
			j++
		}
		body := strings.TrimRight(strings.Join(lines[i+1:j], "\n"), "\n \t") + "\n"
		out[name] = body
	}
	return out
}

func TestSeedNotebooks(t *testing.T) {
	for _, tc := range []struct {
		seed  string
		files []string
	}{
		{"002_742c26890dfac7c0.txt", []string{"stream_ordered_alloc.cu", "mempool_config.cu", "multistream_pool.cu", "stream_ordered_exercises.cu"}},
		{"003_f21c1fd88c616808.txt", []string{"simple_pool_allocator.cu", "vmm_growable_buffer.cu"}},
	} {
		t.Run(tc.seed, func(t *testing.T) {
			path := seed(t, tc.seed)
			l, err := ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if l.Dialect != Notebook {
				t.Errorf("dialect = %s, want notebook", l.Dialect)
			}
			src, _ := os.ReadFile(path)
			bodies := writefileBodies(string(src))
			var got []string
			for i, c := range l.Cells {
				if c.Kind != File {
					continue
				}
				got = append(got, c.Name)
				if c.Text != bodies[c.Name] {
					t.Errorf("%s: contents differ from the export\n--- got\n%s\n--- want\n%s", c.Name, c.Text, bodies[c.Name])
				}
				// The cell after each file compiles and runs it.
				if i+1 >= len(l.Cells) || l.Cells[i+1].Kind != Command {
					t.Errorf("%s: no command cell after it", c.Name)
					continue
				}
				cmd := l.Cells[i+1].Text
				bin := strings.TrimSuffix(c.Name, ".cu")
				if !regexp.MustCompile(`^nvcc .*` + regexp.QuoteMeta(c.Name) + `.* && \./` + regexp.QuoteMeta(bin) + `$`).MatchString(cmd) {
					t.Errorf("%s: command after it is %q, want nvcc ... %s ... && ./%s", c.Name, cmd, c.Name, bin)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.files, " ") {
				t.Errorf("file cells = %v, want %v", got, tc.files)
			}
		})
	}
}

func TestSeedMarkdown(t *testing.T) {
	for _, tc := range []struct {
		seed              string
		code, diagrams    int
		title             string
		strayFenceWarning bool
	}{
		{"000_ac470facc3853afb.txt", 1, 3, "Day 87: Custom Memory Allocators – Stream-Ordered Allocations", true},
		{"001_d75540e9beaf83df.txt", 1, 1, "Day 68: Memory Pool & Custom Allocators", true},
		{"004_eea2a17268944b67.txt", 10, 0, "Stream-Ordered Memory Allocation", false},
	} {
		t.Run(tc.seed, func(t *testing.T) {
			l, err := ParseFile(seed(t, tc.seed))
			if err != nil {
				t.Fatal(err)
			}
			count := map[Kind]int{}
			for _, c := range l.Cells {
				count[c.Kind]++
			}
			if count[Code] != tc.code || count[Diagram] != tc.diagrams || count[File]+count[Command] != 0 {
				t.Errorf("cells by kind = %v, want %d code, %d diagrams, nothing runnable", count, tc.code, tc.diagrams)
			}
			if l.Title != tc.title {
				t.Errorf("title = %q, want %q", l.Title, tc.title)
			}
			if got := len(l.Warnings) > 0; got != tc.strayFenceWarning {
				t.Errorf("warnings = %v", l.Warnings)
			}
		})
	}
}

func TestParseInfo(t *testing.T) {
	for in, want := range map[string]string{
		"cuda file=pool.cu":         "cuda map[file:pool.cu]",
		"sh run":                    "sh map[run:]",
		`{.cuda file="my pool.cu"}`: "cuda map[file:my pool.cu]",
		"":                          " map[]",
		"CPP":                       "cpp map[]",
	} {
		i := ParseInfo(in)
		if got := fmt.Sprintf("%s %v", i.Lang, i.Attrs); got != want {
			t.Errorf("ParseInfo(%q) = %s, want %s", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/cases/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, fl := range ar.Files {
			if fl.Name == "input.md" {
				f.Add(fl.Data)
			}
		}
	}
	f.Add([]byte("# W\r\n\r\n```sh run\r\nls\r\n```\r\n\r\nIn [ ]:\r\n!pwd\r\n"))
	seeds, _ := filepath.Glob("../../../shared/seeds/0*.txt")
	for _, s := range seeds {
		data, _ := os.ReadFile(s)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := Parse("fuzz.md", src)
		if l == nil {
			t.Fatalf("nil lesson (err %v)", err)
		}
		lines := strings.Count(string(src), "\n") + 1
		number := 0
		for _, c := range l.Cells {
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("cell %s at line %d of %d", c.Kind, c.Line, lines)
			}
			if c.Runnable() {
				number++
				if c.Number != number {
					t.Fatalf("cell numbered %d, want %d", c.Number, number)
				}
			}
		}
		for _, e := range append(AsErrors(err), l.Warnings...) {
			if e.Line < 1 || e.Line > lines {
				t.Fatalf("%v: line out of range 1..%d", e, lines)
			}
		}
	})
}

// TestNoEmptyNotebookNodes guards against a stale peeked line making an
// empty cell node out of the blank line before a marker.
func TestNoEmptyNotebookNodes(t *testing.T) {
	l, err := Parse("x.md", []byte("In [ ]:\n%%writefile a.cu\nx\n\nIn [ ]:\n!ls\n\n## Next\n\nIn [ ]:\ny = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	for n := l.Doc.FirstChild(); n != nil; n = n.NextSibling() {
		if nb, ok := n.(*NotebookCell); ok && nb.Lines().Len() == 0 {
			t.Errorf("empty notebook cell node at offset %d", n.Pos())
		}
	}
}

// FuzzCUDAMagic feeds nvcc4jupyter's magic lines to their parser: it
// never panics, and names it accepts stay plain names.
func FuzzCUDAMagic(f *testing.F) {
	for _, s := range []string{"%%cuda", "%%cu -p", `%%cuda -c "-O3 -lcublas" --profiler-args=--set=full`, "%%cuda_group_save -n a.cu -g g", "%%cuda_group_run -g", "%%cuda\u00a0x", `%%cuda -c "`, "%%cuda --name main.cu --compile false", "%%cuda -n ../x.cu -c", "%%cuda_run -t", "%%cuda --name=k.h -p --profiler-args=--set", "%%cuda --name \x1b[2Jx.cu"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, err := ParseCUDAMagic(line)
		if err == nil && (strings.ContainsAny(m.Name+m.Group, "/\\\x00") || m.Op == "" || m.V2 && strings.ContainsFunc(m.Name, unicode.IsControl)) {
			t.Fatalf("%q gave %+v", line, m)
		}
	})
}

// A lesson saved on Windows (CRLF) reads as the same lesson saved on
// Linux: its commands do not end in \r, its lines are where they were.
func TestCRLFLesson(t *testing.T) {
	unix := "---\ntitle: x\n---\n# CRLF\n\nProse.\n\n```cuda file=a.cu run\nint main() {}\n```\n\n```sh run\nnvcc -o a a.cu && ./a\necho done\n```\n\nIn [ ]:\n!ls\n"
	want := dump(Parse("l.md", []byte(unix)))
	got := dump(Parse("l.md", []byte(strings.ReplaceAll(unix, "\n", "\r\n"))))
	if got != want || strings.Contains(got, "\r") {
		t.Errorf("CRLF:\n%s\nLF:\n%s", got, want)
	}
}
