// Package pilot sends the class server's runs to workers on other
// machines (Slurm's GPU and CPU nodes): pilot jobs. A job per run would
// pay seconds of Slurm's scheduling on every cell; instead the server
// submits one long-lived worker job per node, each worker connects back
// to the server over HTTP(S) with its job's own secret and takes runs
// from the class's one fair queue, runs them in the grading sandbox on
// its node and sends the output and the result back.
//
// No shared file system is assumed: a run's files travel with it, named
// by the SHA-256 of their content, so that a node keeps (and fetches
// once) what many runs share: the course, a class's thirty identical
// stubs, a program built once and run on every GPU. A worker sees only
// the files of the runs it was given (and the course), and a worker that
// stops answering has its runs reported stopped.
package pilot

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/cudalessons/lessons/checker"
)

// The kinds of job a worker runs.
const (
	KindCell  = "cell"  // a cell's command in a lesson's workspace
	KindBuild = "build" // an exercise's build (on a CPU node)
	KindRun   = "run"   // an exercise's program, run and judged
)

// Roles of a worker: a GPU node's runs, or a CPU node's builds.
const (
	RoleGPU   = "gpu"
	RoleBuild = "build"
)

// Path is where the hub is served, under the class's own prefix.
const Path = "/_class/pilot/"

// File is a file of a job: its name (slash-separated, inside the job's
// folder), its mode's permission bits and the hash of its content.
type File struct {
	Name string `json:"name"`
	Mode uint32 `json:"mode,omitempty"`
	Hash string `json:"hash"`
	Size int64  `json:"size"`
}

// Hash is the name of content: its SHA-256, in hex.
func Hash(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Job is one run sent to a worker.
type Job struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Device string `json:"device,omitempty"` // the node's GPU, as its CUDA_VISIBLE_DEVICES names it
	Slot   int    `json:"slot"`             // the run slot on the node (its sandbox user)

	// A cell: its command, run in a copy of the lesson's workspace
	// (Files) kept on the node under Workspace (an opaque name); Env's
	// values name the workspace as WorkspaceVar.
	Workspace string        `json:"workspace,omitempty"`
	Files     []File        `json:"files,omitempty"`
	Argv      []string      `json:"argv,omitempty"`
	Env       []string      `json:"env,omitempty"`
	Timeout   time.Duration `json:"timeout,omitempty"`
	MaxOutput int64         `json:"maxOutput,omitempty"`

	// An exercise: the course (a tar.gz, by hash), the exercise, the
	// student's files (the source first) and whether the hidden checks
	// are left out (a check) or judged (a submission). A run names the
	// program built for it.
	Course   string `json:"course,omitempty"`
	Exercise string `json:"exercise,omitempty"`
	Student  string `json:"student,omitempty"`
	// SourceHash names the files (the sandbox's build folders).
	SourceHash string `json:"sourceHash,omitempty"`
	Public     bool   `json:"public,omitempty"`
	Timed      bool   `json:"timed,omitempty"`
	Prog       *File  `json:"prog,omitempty"`
}

// WorkspaceVar stands for the workspace's folder in a cell's Env and
// Argv: the server's path is not the node's.
const WorkspaceVar = "@LESSONS_WORKSPACE@"

// Result is what a worker sends back at the end of a job.
type Result struct {
	// Err is why the tool could not do the job (not the student's
	// code): the page says so, a grade records an error.
	Err string `json:"err,omitempty"`

	// A cell: how it ended, and the workspace's files that it wrote or
	// changed (with their content) and removed.
	Exit      Exit       `json:"exit"`
	Changed   []FileData `json:"changed,omitempty"`
	Removed   []string   `json:"removed,omitempty"`
	Truncated bool       `json:"filesTruncated,omitempty"` // more files than a result carries

	// A build: the program (or the failed "compiles" check).
	Prog   []byte           `json:"prog,omitempty"`
	Failed []checker.Result `json:"failed,omitempty"`
	// A run: the checks' results and the output.
	Results []checker.Result `json:"results,omitempty"`
	Output  string           `json:"output,omitempty"`
	Took    time.Duration    `json:"took"`
}

// Exit is how a cell's command ended (runner.Result's fields).
type Exit struct {
	Code        int           `json:"code"`
	Signal      int           `json:"signal,omitempty"`
	TimedOut    bool          `json:"timedOut,omitempty"`
	Truncated   bool          `json:"truncated,omitempty"`
	Canceled    bool          `json:"canceled,omitempty"`
	OutOfMemory bool          `json:"oom,omitempty"`
	Duration    time.Duration `json:"duration"`
}

// FileData is a file a cell wrote, with its content.
type FileData struct {
	Name string `json:"name"`
	Mode uint32 `json:"mode"`
	Data []byte `json:"data"`
}

// hello is a worker's first request: what it offers.
type hello struct {
	Role string   `json:"role"`
	Host string   `json:"host"`
	GPUs []string `json:"gpus,omitempty"` // as the node's CUDA_VISIBLE_DEVICES names them
}

// welcome is the hub's answer: the worker's name and how many runs at
// once it takes on each GPU (or builds at once).
type welcome struct {
	Worker string `json:"worker"`
	Per    int    `json:"per"`
}

// next asks for the next job of one of the worker's GPUs ("" for a build).
type next struct {
	Device string `json:"device"`
}

// outAck answers a chunk of output: Stop when the run is no longer
// wanted (the student stopped it).
type outAck struct {
	Stop bool `json:"stop"`
}
