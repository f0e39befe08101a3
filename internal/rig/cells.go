package rig

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/sandbox"
	"github.com/cudalessons/lessons/internal/workspace"
)

// Cells is the runner of a student's cells on this rig (the class
// server's, a pilot's): the grading sandbox, as SandboxCells has it, in
// the rig's cgroups where this process may make them (opened on the
// first ask, closed with the rig). read are the folders the cells may
// read beside the system's; veil, the folder of every student's
// workspaces.
func (r *Rig) Cells(read []string, veil string) func(ws string, slot int) runner.Runner {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.opened {
		r.opened = true
		r.cgroups, r.noGroup = exercise.OpenCgroups()
		if cg := r.cgroups; cg != nil {
			r.closers = append(r.closers, func() { cg.Close() })
		}
	}
	return SandboxCells(read, veil, r.cgroups)
}

// NoMemoryBound says why the cells' memory is not bounded here (no
// cgroups), "" when it is; ask after Cells.
func (r *Rig) NoMemoryBound() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.noGroup
}

// cellUID is the first user of the cells' runs when the server runs as
// root: one for each run slot, apart from grade's users (61000 on).
const cellUID = 62000 // to 63023: cellSlots apart, 7 alternatives

// SandboxCells is the runner of a student's cells: the grading sandbox
// (no network, Landlock, limits), writing only the student's workspace,
// reading the system, the toolkit in read and this program and the nvcc
// wrapper (lessons-nvcc where it is installed beside it), as a user of the slot's own when the server runs as root.
// Under veil, the folder that holds every student's workspaces (a
// class's StudentsDir; "": the workspace's parent, a pilot's ws/), a
// run sees its own workspace alone, where the sandbox has a mount
// namespace: a classmate's files are not there even for stat.
func SandboxCells(read []string, veil string, cgroups *sandbox.Cgroups) func(ws string, slot int) runner.Runner {
	for _, find := range []func() (string, error){os.Executable, workspace.WrapperTarget} {
		// This program, and the nvcc wrapper a cell runs (lessons-nvcc
		// beside it, where installed).
		if exe, err := find(); err == nil {
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				read = append(read, real)
			}
			read = append(read, exe)
		}
	}
	return func(ws string, slot int) runner.Runner {
		pol := sandbox.Policy{Limits: sandbox.DefaultLimits, Dir: ws, Read: read, Veil: veil}
		if pol.Veil == "" {
			pol.Veil = filepath.Dir(ws)
		}
		if os.Geteuid() == 0 && os.Getenv("LESSONS_SANDBOX_USERS") != "off" {
			uid := cellUser(slot)
			pol.UID, pol.GID = uid, uid
		}
		return ownedRunner{pol: pol, inner: sandbox.Runner{Policy: pol, Cgroups: cgroups}}
	}
}

// cellSlots is how many cell users a slot's range starts apart.
const cellSlots = 128

// cellUser is the user of a slot's next cell: the first of the slot's
// range that no run holds and no process is left of. Another class
// server or GPU pilot on this machine has slots of the same numbers, and
// a run's end kills every process of its user.
func cellUser(slot int) int {
	uid := cellUID + slot%cellSlots
	for k := 0; k < 7 && !sandbox.UserFree(uid); k++ {
		uid += cellSlots
	}
	return uid
}

// ownedRunner hands the workspace to the slot's user for a run, and
// takes it back after. A slot's user runs every student's cells in turn:
// where the kernel has no Landlock (RHEL 8's 4.18), a workspace left to
// that user, 0755 as made, was open to the next student's run on the
// slot, and to every other slot's user while it ran. Closed (0700) to all
// but its run's user, and the server's between runs, it is not.
type ownedRunner struct {
	pol   sandbox.Policy
	inner runner.Runner
}

func (r ownedRunner) Run(ctx context.Context, spec runner.Spec, out io.Writer) (*runner.Result, error) {
	if err := sandbox.Own(r.pol.Dir, r.pol.UID, r.pol.GID); err != nil {
		return nil, fmt.Errorf("cells: hand the workspace to the run's user: %w", err)
	}
	if err := os.Chmod(r.pol.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("cells: close the workspace to other users: %w", err)
	}
	res, err := r.inner.Run(ctx, spec, out)
	if os.Geteuid() == 0 && r.pol.UID != 0 {
		if e := os.Lchown(r.pol.Dir, 0, 0); e != nil && err == nil {
			err = fmt.Errorf("cells: take the workspace back from the run's user: %w", e)
		}
	}
	return res, err
}
