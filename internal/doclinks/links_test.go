package doclinks

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var root = filepath.Join("..", "..")

// markdownFiles are the repository's .md files, test fixtures aside
// (testdata holds documents that are wrong on purpose).
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "bin", "carry", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

var (
	fenceRE    = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	codeSpanRE = regexp.MustCompile("`+[^`]*`+")
	linkRE     = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDefRE   = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$`)
	headingRE  = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlIDRE   = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	schemeRE   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// doc is what a markdown file offers and asks: its anchors, and its links
// with their lines.
type doc struct {
	anchors map[string]bool
	links   []link
}

type link struct {
	line   int
	target string
}

func read(t *testing.T, path string) *doc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := &doc{anchors: map[string]bool{}}
	seen := map[string]int{}
	inFence := ""
	for i, line := range strings.Split(string(data), "\n") {
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			switch {
			case inFence == "":
				inFence = m[1]
				continue
			case m[1] == inFence:
				inFence = ""
				continue
			}
		}
		if inFence != "" {
			continue
		}
		for _, m := range htmlIDRE.FindAllStringSubmatch(line, -1) {
			d.anchors[m[1]] = true
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			a := Anchor(m[2])
			if n := seen[a]; n > 0 {
				d.anchors[a+"-"+strconv.Itoa(n)] = true
			} else {
				d.anchors[a] = true
			}
			seen[a]++
		}
		if m := refDefRE.FindStringSubmatch(line); m != nil {
			d.links = append(d.links, link{i + 1, m[1]})
			continue
		}
		text := codeSpanRE.ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
			d.links = append(d.links, link{i + 1, m[1]})
		}
	}
	return d
}

// Anchor is the fragment a code forge makes of a heading's text: links
// and emphasis reduced to their words, lower case, punctuation other
// than '-' and '_' dropped, each space a '-'.
func Anchor(heading string) string {
	heading = inlineLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestLinksResolve(t *testing.T) {
	files := markdownFiles(t)
	if len(files) < 5 {
		t.Fatalf("found %d markdown files: is the test run from its folder?", len(files))
	}
	docs := map[string]*doc{}
	get := func(p string) *doc {
		if docs[p] == nil {
			docs[p] = read(t, p)
		}
		return docs[p]
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		for _, l := range get(f).links {
			target := l.target
			if schemeRE.MatchString(target) || strings.HasPrefix(target, "//") {
				continue // another site's: not checked here
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				if strings.HasPrefix(path, "/") {
					dest = filepath.Join(root, path)
				} else {
					dest = filepath.Join(filepath.Dir(f), path)
				}
				info, err := os.Stat(dest)
				if err != nil {
					t.Errorf("%s:%d: link to %s: %s does not exist", rel, l.line, target, path)
					continue
				}
				if info.IsDir() || frag == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
			}
			if frag != "" && !get(dest).anchors[frag] {
				t.Errorf("%s:%d: link to %s: no heading makes #%s there", rel, l.line, target, frag)
			}
		}
	}
}

func TestAnchor(t *testing.T) {
	for h, want := range map[string]string{
		"The grading sandbox: what it promises":           "the-grading-sandbox-what-it-promises",
		"A class on one server (`lessons serve --class`)": "a-class-on-one-server-lessons-serve---class",
		"What needs a GPU":                                "what-needs-a-gpu",
		"A student's [guide](students.md)":                "a-students-guide",
		"course.toml":                                     "coursetoml",
		"Kernels timed on the GPU (record version 4)":     "kernels-timed-on-the-gpu-record-version-4",
	} {
		if got := Anchor(h); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", h, got, want)
		}
	}
}

// TestFrontDoorsStayShort keeps the README a front door (at most 200
// lines, no project history: no issue numbers, test names or seed files)
// and BENCHMARKS.md the current figures (at most 400 lines; the history
// goes to docs/benchmarks-log.md).
func TestFrontDoorsStayShort(t *testing.T) {
	history := regexp.MustCompile(`(?i)\bissue \d+|\bTest[A-Z]\w+|_test\.go|\bseeds?\b [0-9]{3}`)
	for _, f := range []struct {
		name  string
		lines int
		clean bool
	}{{"README.md", 200, true}, {"BENCHMARKS.md", 400, false}} {
		data, err := os.ReadFile(filepath.Join(root, f.name))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "\n"); n > f.lines {
			t.Errorf("%s has %d lines: at most %d (move the detail into the guide under docs/)", f.name, n, f.lines)
		}
		if f.clean {
			for i, line := range strings.Split(string(data), "\n") {
				if m := history.FindString(line); m != "" {
					t.Errorf("%s:%d: %q is the project's history, not a reader's: say it in CHANGELOG.md or CONTRIBUTING.md", f.name, i+1, m)
				}
			}
		}
	}
}
