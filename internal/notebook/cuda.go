package notebook

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cudalessons/lessons/internal/lesson"
)

// cudaDir is where nvcc4jupyter cells keep their files in the workspace:
// a folder for each %%cuda cell, and one for each group.
const cudaDir = ".nvcc4jupyter"

// cudaCell runs an nvcc4jupyter cell as the extension does, but through
// the workspace's nvcc (the cache, the lesson's architecture) and the
// cell's limits: %%cuda writes the cell as one file, builds it with the
// cell's compiler arguments and runs it; a group's cells are saved as
// files of its folder, and its run builds them together.
func cudaCell(ctx context.Context, c *lesson.Cell, env Env, opt Options, w io.Writer, tail *tailBuffer) Outcome {
	m := c.CUDA
	o := Outcome{Cell: c}
	if m.Refused != "" {
		o.Reason = m.Refused
		return o
	}
	var dir, sources string
	group := filepath.Join(cudaDir, "group", m.Group)
	if m.V2 {
		// version 2 kept its files in src, in the notebook's folder,
		// where its courses' ! lines build them (!nvcc ./src/divide.cu)
		group = m.Group
	}
	switch m.Op {
	case "cuda":
		dir = filepath.Join(cudaDir, fmt.Sprintf("cell%d", c.Number))
		if _, err := writeFile(opt.Workspace, filepath.Join(dir, "single.cu"), c.Text); err != nil {
			o.Reason = err.Error()
			return o
		}
		sources = filepath.Join(dir, "single.cu")
	case "cuda_group_save":
		if _, err := writeFile(opt.Workspace, filepath.Join(group, m.Name), c.Text); err != nil {
			o.Reason = err.Error()
			return o
		}
		if m.V2 {
			fmt.Fprintf(w, "File written in %s\n", filepath.Join(group, m.Name))
		} else {
			fmt.Fprintf(w, "saved %s in group %s\n", m.Name, m.Group)
		}
		if !m.Run {
			o.OK = true
			return o
		}
		// nvcc4jupyter 2's --compile: the file built alone and run
		dir = group
		sources = filepath.Join(dir, m.Name)
	case "cuda_group_delete":
		if err := os.RemoveAll(filepath.Join(opt.Workspace, cudaDir, "group", m.Group)); err != nil {
			o.Reason = err.Error()
			return o
		}
		o.OK = true
		return o
	case "cuda_group_run":
		dir = group
		files := groupSources(opt.Workspace, dir)
		if len(files) == 0 {
			o.Reason = fmt.Sprintf("group %s has no source files: save them first with %%%%cuda_group_save -n NAME.cu -g %s", m.Group, m.Group)
			return o
		}
		sources = strings.Join(files, " ")
	}
	// nvcc4jupyter builds every cell with the group "shared": its headers
	// on the include path and its sources compiled in, whatever the group.
	shared := filepath.Join(cudaDir, "group", sharedGroup)
	include := "-I" + dir
	if st, err := os.Stat(filepath.Join(opt.Workspace, shared)); err == nil && st.IsDir() && dir != shared && !m.V2 {
		include = "-I" + shared + " " + include
		if more := groupSources(opt.Workspace, shared); len(more) > 0 {
			sources += " " + strings.Join(more, " ")
		}
	}
	exe := filepath.Join(dir, "cuda_exec.out")
	build := strings.Join(strings.Fields(fmt.Sprintf("nvcc %s %s %s -o %s", m.CompilerArgs, include, sources, exe)), " ")
	run := "./" + exe
	if m.Profile {
		switch prof := profiler(); prof {
		case "":
			fmt.Fprintln(w, "(--profile: no ncu or nsys on this machine; the program runs without a profiler)")
		default:
			run = strings.TrimSpace(prof + " " + m.ProfilerArgs + " " + run)
		}
	}
	if m.Timeit {
		fmt.Fprintln(w, "(--timeit: the program runs once; its time is the cell's)")
	}
	return command(ctx, c, env, opt, build+" && "+run, w, tail)
}

// sharedGroup is the group whose files nvcc4jupyter adds to every build.
const sharedGroup = "shared"

// groupSources are the source files saved in a group's folder, in order.
func groupSources(ws, dir string) []string {
	var files []string
	entries, _ := os.ReadDir(filepath.Join(ws, dir))
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".c" {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return files
}

// profiler is the profiler --profile runs under: Nsight Compute, as
// nvcc4jupyter does, else Nsight Systems; "" when neither is installed.
func profiler() string {
	for _, p := range []string{"ncu", "nsys"} {
		if _, err := exec.LookPath(p); err == nil {
			if p == "nsys" {
				return "nsys profile --stats=true"
			}
			return p
		}
	}
	return ""
}
