package lms

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/roster"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

// The course's exercises, each with identifiers of its own.
const (
	pipeStub = `// TODO: allocate in stream order.
__global__ void scaleKernel(float* d, int n) {}
void runPipeline(cudaStream_t* streams, int iterations) {
  // TODO cudaMallocAsync
}
int main() { runPipeline(nullptr, 12); }
`
	pipeDone = `__global__ void scaleKernel(float* d, int n) {}
void runPipeline(cudaStream_t* streams, int iterations) {
  for (int i = 0; i < iterations; i++) { float* d; cudaMallocAsync(&d, 4, streams[i % 4]); cudaFreeAsync(d, streams[i % 4]); }
}
int main() { runPipeline(nullptr, 12); }
`
	poolStub = `struct BlockPool { char* arena; int* freeList; };
void* allocateBlock(BlockPool& pool) { return nullptr; /* TODO */ }
void releaseBlock(BlockPool& pool, void* block) { /* TODO */ }
int main() { BlockPool pool; allocateBlock(pool); }
`
	poolDone = `struct BlockPool { char* arena; int* freeList; int freeTop; };
void* allocateBlock(BlockPool& pool) { return pool.arena + pool.freeList[--pool.freeTop]; }
void releaseBlock(BlockPool& pool, void* block) { pool.freeList[pool.freeTop++] = 0; }
int main() { BlockPool pool; allocateBlock(pool); }
`
	resStub = `#include "memory_resource.h"
class PoolResource : public MemoryResource { void* do_allocate(size_t bytes, Stream s) override; };
`
)

func testCourse(t testing.TB) *course.Course {
	t.Helper()
	root := coursetest.Write(t, map[string]string{
		"course.toml": `title = "T"
[[lesson]]
file = "lessons/day068-a.md"
[[exercise]]
id = "block-pool"
lesson = "68"
student = "exercises/day068/block_pool.cu"
solution = "solutions/day068/block_pool.cu"
[[exercise]]
id = "async-pipeline"
lesson = "68"
student = "exercises/day070/async_pipeline.cu"
solution = "solutions/day070/async_pipeline.cu"
[[exercise]]
id = "pool-resource"
lesson = "68"
student = "exercises/day076/pool_resource.h"
solution = "solutions/day076/pool_resource.h"
`,
		"lessons/day068-a.md":                  "# A\n",
		"exercises/day068/block_pool.cu":       poolStub,
		"exercises/day068/block_pool.toml":     "[[check]]\nexit = 0\n",
		"solutions/day068/block_pool.cu":       poolDone,
		"exercises/day070/async_pipeline.cu":   pipeStub,
		"exercises/day070/async_pipeline.toml": "[[check]]\nexit = 0\n",
		"solutions/day070/async_pipeline.cu":   pipeDone,
		"exercises/day076/pool_resource.h":     resStub,
		"exercises/day076/memory_resource.h":   "class MemoryResource {};\n",
		"exercises/day076/pool_resource.toml":  "files = [\"memory_resource.h\"]\n[[check]]\nexit = 0\n",
		"solutions/day076/pool_resource.h":     resStub + "// done\n",
	})
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var listed = []gradebook.Person{
	{ID: "jsmith", Name: "John Smith", Email: "jsmith@uni.edu", Section: "A"},
	{ID: "jdoe", Name: "Doe, Jane", Email: "jdoe@uni.edu", LMSID: "1002", Section: "B"},
	{ID: "alopez", Name: "Ana López", Email: "alopez@uni.edu", Section: "A"},
	{ID: "mwho", Name: "Missing Who", Email: "mwho@uni.edu", Section: "B"},
}

// arranged is what Arrange made: the tree (each file's first line), the
// report and the roster it learnt, for a golden file.
func arranged(t *testing.T, src string, r []gradebook.Person) (*Class, []byte) {
	t.Helper()
	ts, err := Targets(testCourse(t))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cl, err := Arrange(src, out, ts, Options{Roster: r})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("# tree\n")
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(out, p)
		switch {
		case p == out:
		case d.IsDir():
			fmt.Fprintf(&b, "%s/\n", rel)
		default:
			data, _ := os.ReadFile(p)
			first, _, _ := strings.Cut(string(data), "\n")
			fmt.Fprintf(&b, "%s: %s\n", rel, first)
		}
		return nil
	})
	b.WriteString("# report\n")
	cl.WriteReport(&b)
	b.WriteString("# roster\n")
	roster.Write(&b, cl.People)
	return cl, b.Bytes()
}

func TestArrangeCanvas(t *testing.T) {
	nested := zipOf(t,
		entry{name: "day070/async_pipeline.cu", data: "// jane's pipeline\n" + pipeDone},
		entry{name: "day068/pool.cu", data: "// jane's pool, by another name\n" + poolDone},
		entry{name: "__MACOSX/day068/._pool.cu", data: "junk"},
	)
	src := writeZip(t,
		entry{name: "smithjohn_1001_5001_async_pipeline.cu", data: "// first upload\n" + pipeStub},
		entry{name: "smithjohn_1001_5001_async_pipeline-1.cu", data: "// second upload\n" + pipeDone},
		entry{name: "smithjohn_1001_5001_My Pool (1).cu", data: "// john's pool, named his way\n" + poolDone},
		entry{name: "doejane_late_1002_5002_day070.zip", data: string(nested)},
		entry{name: "doejane_late_1002_5002_notes.txt", data: "dear instructor\n"},
		entry{name: "lopezana_LATE_1003_5003_async_pipeline (1).cu", data: "// ana\n" + pipeStub},
		entry{name: "ruizmarta_1004_5004_pool_resource.h", data: "// marta\n" + resStub},
		entry{name: "ruizmarta_1004_5004_memory_resource.h", data: "// marta's own copy\n"},
		entry{name: "ruizmarta_1004_5004_link.cu", data: "/etc/passwd", mode: fs.ModeSymlink | 0o777},
		entry{name: "README.txt", data: "not a student's\n"},
	)
	cl, got := arranged(t, src, listed)
	if cl.Layout != Canvas {
		t.Errorf("layout %s, want canvas", cl.Layout)
	}
	golden(t, "canvas.golden", got)
}

func TestArrangeMoodle(t *testing.T) {
	src := writeZip(t,
		entry{name: "John Smith_111_assignsubmission_file_/async_pipeline.cu", data: "// john\n" + pipeDone},
		entry{name: "John Smith_111_assignsubmission_file_/day068/block_pool.cu", data: "// john's pool\n" + poolStub},
		entry{name: "Ana López_222_assignsubmission_file_/Copy of block_pool.cu", data: "// ana\n" + poolDone},
		entry{name: "Jane Doe_333_assignsubmission_file_async_pipeline.cu", data: "// jane, not in a folder\n" + pipeDone},
		entry{name: "Jane Doe_333_assignsubmission_onlinetext_onlinetext.html", data: "<p>hi</p>\n"},
	)
	cl, got := arranged(t, src, nil)
	if cl.Layout != Moodle {
		t.Errorf("layout %s, want moodle", cl.Layout)
	}
	golden(t, "moodle.golden", got)
}

// A zip of the class's folder, as an instructor would make by hand.
func TestArrangeFolders(t *testing.T) {
	src := writeZip(t,
		entry{name: "submissions/alice/async_pipeline.cu", data: "// alice\n" + pipeDone},
		entry{name: "submissions/bob/day070/async_pipeline.cu", data: "// bob\n" + pipeStub},
		entry{name: "submissions/bob/day070/pipeline.cu", data: "// bob's second try, a name of his own\n" + pipeDone},
		entry{name: "submissions/bob/pool.cu", data: "// bob's pool\n" + poolDone},
		entry{name: "submissions/Zoë K/block_pool.cu", data: "// zoë\n" + poolStub},
		entry{name: "submissions/.DS_Store", data: "junk"},
		entry{name: "submissions/dave.zip", data: string(zipOf(t, entry{name: "async_pipeline.cu", data: "// dave, zipped\n" + pipeDone}))},
	)
	cl, got := arranged(t, src, listed[:1])
	if cl.Layout != Folders {
		t.Errorf("layout %s, want folders", cl.Layout)
	}
	golden(t, "folders.golden", got)
}

func TestIsDownload(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	os.MkdirAll(filepath.Join(plain, "alice"), 0o755)
	canvas := filepath.Join(dir, "canvas")
	os.MkdirAll(canvas, 0o755)
	os.WriteFile(filepath.Join(canvas, "smithjohn_1_2_pool.cu"), nil, 0o644)
	moodle := filepath.Join(dir, "moodle")
	os.MkdirAll(filepath.Join(moodle, "John Smith_1_assignsubmission_file_"), 0o755)
	for src, want := range map[string]bool{plain: false, canvas: true, moodle: true, writeZip(t, entry{name: "a/b"}): true, filepath.Join(dir, "none"): false} {
		if got := IsDownload(src); got != want {
			t.Errorf("IsDownload(%s) = %v, want %v", src, got, want)
		}
	}
}

// A Canvas download unpacked into a folder reads as its zip does.
func TestOpenCanvasFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "smithjohn_1001_5001_async_pipeline.cu"), []byte(pipeDone), 0o644)
	os.WriteFile(filepath.Join(dir, "doejane_1002_5002_pool.cu"), []byte(poolDone), 0o644)
	subs, err := Open(dir, testCourse(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer subs.Close()
	if !subs.Unpacked() || subs.Layout != Canvas {
		t.Fatalf("unpacked %v, layout %s", subs.Unpacked(), subs.Layout)
	}
	for _, f := range []string{"smithjohn/day070/async_pipeline.cu", "doejane/day068/block_pool.cu"} {
		if _, err := os.Stat(filepath.Join(subs.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	tmp := subs.Dir
	subs.Close()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("Close left %s", tmp)
	}
}

// A folder per student is graded where it is; the roster says who has
// no folder.
func TestOpenPlainFolder(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "jsmith"), 0o755)
	os.MkdirAll(filepath.Join(dir, "zed"), 0o755)
	subs, err := Open(dir, testCourse(t), listed)
	if err != nil {
		t.Fatal(err)
	}
	if subs.Unpacked() || subs.Dir != dir {
		t.Errorf("a plain folder was unpacked into %s", subs.Dir)
	}
	if got := strings.Join(subs.Missing, ","); got != "jdoe,alopez,mwho" {
		t.Errorf("missing %s", got)
	}
	if got := strings.Join(subs.Unlisted, ","); got != "zed" {
		t.Errorf("unlisted %s", got)
	}
}

func TestOpenEmptyDownload(t *testing.T) {
	_, err := Open(writeZip(t, entry{name: "README.txt", data: "x"}), testCourse(t), nil)
	if err == nil || !strings.Contains(err.Error(), "no student's files") {
		t.Errorf("err = %v", err)
	}
}

// Two students whose names run together alike get folders of their own.
func TestArrangeSameNames(t *testing.T) {
	src := writeZip(t,
		entry{name: "leejin_2001_1_async_pipeline.cu", data: pipeDone},
		entry{name: "leejin_2002_2_async_pipeline.cu", data: pipeStub},
	)
	cl, _ := arranged(t, src, nil)
	if len(cl.People) != 2 || cl.People[0].ID != "leejin" || cl.People[1].ID != "leejin-2002" {
		t.Errorf("people %+v", cl.People)
	}
}

// Folders named alike but for their case, one named as the class
// server's instructor, and two long names alike get folders of their
// own, each a roster id (roster.csv reads back).
func TestArrangeFolderNamesAreRosterIDs(t *testing.T) {
	long := strings.Repeat("a", 70)
	src := writeZip(t,
		entry{name: "submissions/Ann/async_pipeline.cu", data: pipeDone},
		entry{name: "submissions/ann/async_pipeline.cu", data: pipeStub},
		entry{name: "submissions/instructor/async_pipeline.cu", data: pipeStub},
		entry{name: "submissions/" + long + "x/async_pipeline.cu", data: pipeStub},
		entry{name: "submissions/" + long + "y/async_pipeline.cu", data: pipeStub},
	)
	cl, _ := arranged(t, src, nil)
	var b bytes.Buffer
	roster.Write(&b, cl.People)
	back, err := roster.Read(&b, "roster.csv")
	if err != nil || len(back) != 5 {
		t.Fatalf("roster.csv of %+v: %v", cl.People, err)
	}
}

func TestUnpack(t *testing.T) {
	src := writeZip(t, entry{name: "smithjohn_1001_5001_async_pipeline.cu", data: pipeDone})
	out := filepath.Join(t.TempDir(), "class")
	write := func(name string, data []byte) error { return os.WriteFile(name, data, 0o644) }
	if _, err := Unpack(src, out, testCourse(t), listed, write); err != nil {
		t.Fatal(err)
	}
	r, err := roster.Load(filepath.Join(out, "roster.csv"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]gradebook.Person{}
	for _, p := range r {
		got[p.ID] = p
	}
	if p := got["jsmith"]; p.LMSID != "1001" || p.Handle != "smithjohn_1001_5001" || p.LMS != "canvas" || p.Email != "jsmith@uni.edu" {
		t.Errorf("roster.csv read back: %+v", p)
	}
	if _, err := Unpack(src, out, testCourse(t), listed, write); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("unpack into a full folder: %v", err)
	}
}

// TestReportPrintsNamesAsText: the names of a download's files and
// students are the students' (what they uploaded, what they call
// themselves): the report prints each on its line, with no escape
// sequence (a terminal's title, its clipboard) and no line of its own.
func TestReportPrintsNamesAsText(t *testing.T) {
	c := &Class{
		Notes:   []Note{{Kind: Stray, File: "notes\x1b]52;c;cm0gLXJmIH4K\x07\nalice: all passed.txt", Why: "not in a student's folder"}},
		Missing: []string{"bob\x1b[2J"},
	}
	var b strings.Builder
	if err := c.WriteReport(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
		t.Errorf("the report holds control characters: %q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "alice") {
			t.Errorf("a file's name printed a line of its own: %q", out)
		}
	}
}
