package witness

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// Group is a cgroup (version 2) of one run, made for the witness where
// the runner gives the run none of its own: File is its folder, open, to
// start the program in.
type Group struct {
	Dir  string
	File *os.File
	w    *Witness
}

var groups atomic.Int64

// Group makes a cgroup for one run, in a folder of the witness's beside
// this process's own cgroup. It has no controller: it only names the
// run's processes apart.
func (w *Witness) Group() (*Group, error) {
	w.mu.Lock()
	if w.parent == "" {
		parent, err := ownCgroup()
		if err != nil {
			w.mu.Unlock()
			return nil, err
		}
		parent = filepath.Join(parent, fmt.Sprintf("lessons-witness-%d", os.Getpid()))
		if err := os.Mkdir(parent, 0o755); err != nil && !os.IsExist(err) {
			w.mu.Unlock()
			return nil, fmt.Errorf("witness: a cgroup for runs: %w", err)
		}
		w.parent = parent
	}
	parent := w.parent
	w.mu.Unlock()
	dir := filepath.Join(parent, fmt.Sprint(groups.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("witness: a run's cgroup: %w", err)
	}
	f, err := os.Open(dir)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("witness: %w", err)
	}
	return &Group{Dir: dir, File: f, w: w}, nil
}

// Close removes the group once its processes are gone (the runner has
// killed them; the kernel lets a cgroup go a moment after), in the
// background: the run's verdict does not wait for it.
func (g *Group) Close() {
	g.File.Close()
	if os.Remove(g.Dir) == nil {
		return
	}
	g.w.removing.Add(1)
	go func() {
		defer g.w.removing.Done()
		for i := 0; i < 100; i++ {
			time.Sleep(10 * time.Millisecond)
			if err := os.Remove(g.Dir); err == nil || os.IsNotExist(err) {
				return
			}
		}
	}()
}

// ownCgroup is the folder of this process's cgroup in the version 2
// hierarchy (the unified one, where version 1 is mounted too).
func ownCgroup() (string, error) {
	mount := ""
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("witness: %w", err)
	}
	defer mi.Close()
	sc := bufio.NewScanner(mi)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ... - FSTYPE SOURCE SUPER
		f := strings.Fields(sc.Text())
		for i, x := range f {
			if x == "-" && i+1 < len(f) && f[i+1] == "cgroup2" && len(f) > 4 && f[3] == "/" {
				mount = f[4]
			}
		}
		if mount != "" {
			break
		}
	}
	if mount == "" {
		return "", errors.New("witness: no cgroup version 2 is mounted here")
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("witness: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return filepath.Join(mount, rest), nil
		}
	}
	return mount, nil
}
