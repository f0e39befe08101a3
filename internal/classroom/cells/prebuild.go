package cells

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/runner"
)

// cellBuilds builds the nvcc steps of the cells into the class's shared
// cache before they queue: a build holds no GPU slot, and the class's
// copies of one file build once. The build of a key runs in a folder of
// its own that holds only the files the key hashes, as a user of its own
// in the cells' sandbox, with the server's environment; the cells' nvcc
// wrapper then finds it by the same key (buildcache's shared.go), or,
// for what the shared cache does not take, builds as before in the
// student's own cache, in the slot.
type cellBuilds struct {
	cache *buildcache.Cache
	comp  buildcache.Compiler
	dir   string   // the builds' folders
	slots chan int // build slots, numbered after the run slots (their users)

	mu     sync.Mutex
	flight map[string]chan struct{} // closed when the key's build ends
	failed map[string]bool          // keys whose build failed: the cell builds in its slot and says why
}

// maxFailed bounds the failed keys remembered.
const maxFailed = 10000

func newCellBuilds(cache *buildcache.Cache, comp buildcache.Compiler, dir string, jobs, firstSlot int) (*cellBuilds, error) {
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return nil, fmt.Errorf("class: the cells' build folder: %w", err)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		return nil, fmt.Errorf("class: the cells' build folder: %w", err)
	}
	b := &cellBuilds{cache: cache, comp: comp, dir: dir, slots: make(chan int, max(jobs, 1)), flight: map[string]chan struct{}{}, failed: map[string]bool{}}
	for i := range max(jobs, 1) {
		b.slots <- firstSlot + i
	}
	return b, nil
}

// unsafeShell are the characters that make a step of a cell more than
// a plain nvcc command line: quotes, variables, globs, redirections.
const unsafeShell = "'\"$`*?[]<>|&(){}~\\#!"

var stepSep = regexp.MustCompile(`&&|\|\||;|\n`)

// nvccSteps are the argument lists of the plain nvcc steps of a cell's
// shell command (spec: sh -c SCRIPT).
func nvccSteps(spec runner.Spec) [][]string {
	if len(spec.Argv) != 3 || spec.Argv[1] != "-c" {
		return nil
	}
	var out [][]string
	for _, part := range stepSep.Split(spec.Argv[2], -1) {
		f := strings.Fields(part)
		if len(f) < 2 || f[0] != "nvcc" || strings.ContainsAny(part, unsafeShell) {
			continue
		}
		out = append(out, f[1:])
	}
	return out
}

// prebuild builds the plain nvcc steps of student's cell run in ws into
// the shared cache, each unless it is there. Nothing here fails the
// cell: a step not built here is built by the cell, as it would have
// been. A student's builds go one at a time, their checks' included:
// the build slots are the class's.
func (r *Room) prebuild(ctx context.Context, student, ws string, spec runner.Spec, sp *Span) {
	b := r.builds
	if b == nil {
		return
	}
	for _, args := range nvccSteps(spec) {
		cmd := buildcache.Parse(args, b.comp.Arch)
		key, files, err := b.key(cmd, ws, spec.Env)
		if err != nil || b.cache.Has(key) {
			continue
		}
		release, err := r.Hold(ctx, student)
		if err != nil {
			return
		}
		sp.Mark(BuildStart, r.cfg.Clock())
		b.build(ctx, r.cfg.Cells, key, cmd, files, spec)
		sp.Mark(BuildEnd, r.cfg.Clock())
		release()
	}
}

// key is the shared key of cmd in ws, with its files; the files are read
// through ws's root, regular files only, none larger than a source may
// be. A host compiler found in the workspace (the cell's PATH starts
// there) is refused: the build runs without it.
func (b *cellBuilds) key(cmd buildcache.Command, ws string, env []string) (string, buildcache.Inputs, error) {
	path := envValue(env, "PATH")
	for _, p := range []string{"gcc", "g++"} {
		if buildcache.LookPath(p, path) != buildcache.LookPath(p, outsidePath(path, ws)) {
			return "", nil, errors.New("a host compiler in the workspace")
		}
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return "", nil, err
	}
	defer root.Close()
	return buildcache.SharedKey(b.comp, cmd, env, func(name string) ([]byte, error) { return readRegular(root, name) })
}

// readRegular reads name in root if it is a regular file of at most
// grade.MaxSource bytes; a FIFO or a device is not waited on.
func readRegular(root *os.Root, name string) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > grade.MaxSource {
		return nil, fmt.Errorf("%s is not a source file", name)
	}
	return io.ReadAll(io.LimitReader(f, grade.MaxSource+1))
}

// outsidePath is a PATH's value without its folders in ws, or relative.
func outsidePath(path, ws string) string {
	var keep []string
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		if rel, err := filepath.Rel(ws, d); err == nil && filepath.IsLocal(rel) || rel == "." {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// build builds key, or waits for the build of it already under way.
func (b *cellBuilds) build(ctx context.Context, cells func(string, int) runner.Runner, key string, cmd buildcache.Command, files buildcache.Inputs, spec runner.Spec) {
	b.mu.Lock()
	if b.failed[key] {
		b.mu.Unlock()
		return
	}
	if ch, ok := b.flight[key]; ok {
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		return
	}
	ch := make(chan struct{})
	b.flight[key] = ch
	b.mu.Unlock()
	ok := false
	defer func() {
		b.mu.Lock()
		delete(b.flight, key)
		if !ok && ctx.Err() == nil {
			if len(b.failed) >= maxFailed {
				clear(b.failed)
			}
			b.failed[key] = true
		}
		b.mu.Unlock()
		close(ch)
	}()
	var slot int
	select {
	case slot = <-b.slots:
	case <-ctx.Done():
		return
	}
	defer func() { b.slots <- slot }()
	ok = b.buildIn(ctx, cells, slot, key, cmd, files, spec) == nil
}

// buildIn builds key in a folder of its own holding only files, as the
// build slot's user, and keeps the output in the shared cache.
func (b *cellBuilds) buildIn(ctx context.Context, cells func(string, int) runner.Runner, slot int, key string, cmd buildcache.Command, files buildcache.Inputs, spec runner.Spec) error {
	dir, err := os.MkdirTemp(b.dir, "b-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for name, data := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	tmp := filepath.Join(dir, ".tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	env := WithVar(WithVar(WithVar(spec.Env, "PATH", outsidePath(envValue(spec.Env, "PATH"), spec.Dir)), "TMPDIR", tmp), "HOME", dir)
	var log bytes.Buffer
	res, err := cells(dir, slot).Run(ctx, runner.Spec{
		Argv: append([]string{b.comp.Path}, cmd.Args...), Dir: dir, Env: env,
		Timeout: spec.Timeout, MaxOutput: 1 << 20,
	}, &log)
	if err != nil {
		return err
	}
	if !res.OK() {
		return errors.New(res.Reason(spec.Timeout, 1<<20))
	}
	// The output as the build's user left it: read through the folder's
	// root (a link out of it is refused), into a file of the server's.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	in, err := root.OpenFile(cmd.Output, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	if st, err := in.Stat(); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("the build's output %s is not a file", cmd.Output)
	}
	out, err := os.CreateTemp(b.dir, "out-")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	_, err = io.Copy(out, in)
	if e := out.Close(); err == nil {
		err = e
	}
	if err != nil {
		return err
	}
	return b.cache.Put(key, out.Name(), log.Bytes())
}
