package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/course/coursetest"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/machine/machinetest"
	"github.com/cudalessons/lessons/internal/slurm"
)

// class is a course of one exercise (pipe) and four students: ann and bob
// hand in the same file, cid another, dan nothing.
func class(t *testing.T) *grade.Class {
	t.Helper()
	root := coursetest.Tiny(t, []string{"pipe"}, nil)
	subs := coursetest.Write(t, map[string]string{
		"ann/pipe.cu": "int main() { return 0; }\n",
		"bob/pipe.cu": "int main() { return 0; }\n",
		"cid/pipe.cu": "int main() { return 1; }\n",
		"dan/.keep":   "",
	})
	c, err := course.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := grade.LoadClass(c, subs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// A grade through Slurm settles here what needs no node (dan's missing
// file), submits the rest as one round (the file ann and bob share built
// once), and a grade again submits nothing that is graded or still
// running.
func TestGradeSubmitPlan(t *testing.T) {
	t.Setenv("LESSONS_CACHE", t.TempDir())
	cl := class(t)
	s := newStubs(t)
	var notes []string
	g := &Grade{Class: cl, Dir: filepath.Join(t.TempDir(), "jobs"), Exe: "/shared/lessons", Exec: s.exec, NoPreflight: true,
		Options: slurm.Options{ItemsPerTask: 2, BuildsPerTask: 1}, Note: func(n string) { notes = append(notes, n) }}
	d, err := g.Driver()
	if err != nil {
		t.Fatal(err)
	}
	d.State.Capability = "9.0" // as a preflight finds it
	book := openBook(t)

	dry, err := g.DryRun(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# 3 items, 2 distinct files\n", "#   build 0: pipe of ann\n", "#   build 1: pipe of cid\n", "#   run 0: ann pipe, bob pipe\n", "#   run 1: cid pipe\n", "--dependency=afterany:BUILD_JOB"} {
		if !strings.Contains(dry, want) {
			t.Errorf("dry run lacks %q:\n%s", want, dry)
		}
	}
	if _, err := os.Stat(g.Dir); err == nil {
		t.Error("a dry run made the job folder")
	}

	s.on("sbatch --parsable "+filepath.Join(g.Dir, "build-0.sh"), "41\n", nil)
	s.on("sbatch --parsable --dependency=afterany:41 "+filepath.Join(g.Dir, "run-0.sh"), "42\n", nil)
	if d, err = g.Submit(context.Background(), d, book); err != nil || d == nil {
		t.Fatalf("submit: %v %v", d, err)
	}
	want := []string{
		"Grading 4 students on 1 exercise through Slurm: 3 items to grade, 0 unchanged since the last run, 1 missing or not gradable.",
		"Submitted job 41: 2 build tasks (2 distinct files) on the default partition.",
		"Submitted job 42: 2 run tasks (3 items, up to 2 each) on the default partition, after the builds.",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes %q\nwant %q", notes, want)
	}
	if a, ok, _ := book.Latest("dan", "pipe"); !ok || a.Status != gradebook.Missing {
		t.Errorf("dan: %+v", a)
	}
	p, err := ReadPlan(d.State.Rounds[0].Plan)
	if err != nil {
		t.Fatal(err)
	}
	if p.Course != cl.Course.Root || p.Submissions != cl.Submissions || p.Capability != "9.0" || p.Results != filepath.Join(g.Dir, "results", "0") {
		t.Errorf("plan %+v", p)
	}
	var names []string
	for _, it := range p.Items() {
		names = append(names, it.Student)
		if it.SpecHash == "" || it.SourceHash == "" || it.MaxPoints != cl.Tasks[0].Spec.Points {
			t.Errorf("item %+v", it)
		}
	}
	if !slices.Equal(names, []string{"ann", "bob", "cid"}) {
		t.Errorf("items of %q", names)
	}

	// Still running: nothing is submitted again, and it says so (dan's
	// missing file, recorded, is unchanged now).
	notes = nil
	s.on("squeue -h -r -t all -j 41,42", "41_0|RUNNING|None\n42_0|PENDING|Dependency\n", nil)
	if _, err := g.Submit(context.Background(), d, book); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "0 items to grade, 1 unchanged since the last run, 0 missing or not gradable, 3 still with the tasks of an earlier submission") {
		t.Errorf("notes %q", notes)
	}
}

// The job folder is never among the submissions, where students could
// write it.
func TestGradeDriverRefusesAJobFolderInTheSubmissions(t *testing.T) {
	t.Setenv("LESSONS_CACHE", t.TempDir())
	cl := class(t)
	g := &Grade{Class: cl, Dir: filepath.Join(cl.Submissions, "jobs"), Exe: "/shared/lessons"}
	var usage *failure.Usage
	if _, err := g.Driver(); !errors.As(err, &usage) || !strings.Contains(err.Error(), "--slurm-dir") {
		t.Errorf("got %v, want a usage error naming --slurm-dir", err)
	}
}

// A node's worker takes its share of the round: a build task its
// distinct files, a run task the items its round has no result for yet,
// each read as the local grade reads it.
func TestWorkerShare(t *testing.T) {
	cl := class(t)
	var items []Item
	for _, task := range cl.Tasks {
		if task.Source != nil {
			items = append(items, Item{Student: task.Student, Exercise: task.Exercise.ID, SourceHash: task.SourceHash, SpecHash: task.SpecHash})
		}
	}
	p := NewPlan(0, items, 2, 1, false)
	p.Course, p.Submissions, p.Results = cl.Course.Root, cl.Submissions, t.TempDir()

	w := &Worker{Stage: slurm.StageBuild, Index: 1}
	got, err := w.share(p)
	if err != nil || len(got) != 1 || got[0].Student != "cid" {
		t.Errorf("build task 1: %+v %v", got, err)
	}
	w.Index = 2
	if _, err := w.share(p); err == nil || !strings.Contains(err.Error(), "build task 2 of 2") {
		t.Errorf("build task 2: %v", err)
	}

	w = &Worker{Stage: slurm.StageRun, Index: 0}
	if err := WriteResult(p.Results, &Result{Item: p.Runs[0][0], Attempt: &gradebook.Attempt{Student: "ann", Exercise: "pipe", Status: gradebook.Passed}}); err != nil {
		t.Fatal(err)
	}
	got, err = w.share(p)
	if err != nil || len(got) != 1 || got[0].Student != "bob" {
		t.Fatalf("run task 0 after ann's result: %+v %v", got, err)
	}
	tasks, err := w.tasks(p, got)
	if err != nil || len(tasks) != 1 || tasks[0].Student != "bob" || tasks[0].SourceHash != got[0].SourceHash {
		t.Errorf("tasks %+v %v", tasks, err)
	}
}

// A build node has no GPU: it builds for the run nodes' GPU that the plan
// names; a run node needs one ($LESSONS_GPU fakes it).
func TestWorkerMachine(t *testing.T) {
	machinetest.Fake(t, "none")
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("LESSONS_DRIVER_CHECK", "off")
	var log strings.Builder
	w := &Worker{Stage: slurm.StageBuild, Log: &log}
	r, err := w.rig(t.Context(), &Plan{Capability: "8.0"})
	if err != nil || r.Machine.Arch() != "sm_80" || r.Sandbox == nil {
		t.Fatalf("build node: %v %v", r, err)
	}
	r.Close()
	if _, err := w.rig(t.Context(), &Plan{}); err == nil || !strings.Contains(err.Error(), "names no GPU") {
		t.Errorf("no capability: %v", err)
	}
	w.Stage = slurm.StageRun
	var tool *failure.Tool
	if _, err := w.rig(t.Context(), &Plan{Capability: "9.0"}); !errors.As(err, &tool) {
		t.Errorf("run node without a GPU: %v", err)
	}
	t.Setenv("LESSONS_GPU", "Fake A100,8.0,1024")
	if r, err = w.rig(t.Context(), &Plan{Capability: "9.0"}); err != nil || r.Machine.Arch() != "sm_80" {
		t.Fatalf("run node: %v %v", r, err)
	}
	r.Close()
	if !strings.Contains(log.String(), "this node's GPU is sm_80, the build tasks built for 9.0: building here") {
		t.Errorf("log %q", log.String())
	}
}

// The task's index is the flag's, else Slurm's; outside an array, and
// with no flag, it is a usage error.
func TestTaskIndex(t *testing.T) {
	t.Setenv("SLURM_ARRAY_TASK_ID", "7")
	if n, err := TaskIndex(-1); n != 7 || err != nil {
		t.Errorf("from Slurm: %d %v", n, err)
	}
	if n, err := TaskIndex(2); n != 2 || err != nil {
		t.Errorf("from the flag: %d %v", n, err)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	var usage *failure.Usage
	if _, err := TaskIndex(-1); !errors.As(err, &usage) {
		t.Errorf("outside an array: %v", err)
	}
}
