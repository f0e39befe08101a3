// Package workspace is where a lesson's cells run: .lessons/work/NAME in
// the course (or a folder in the cache for a lesson read by path), with
// the nvcc wrapper that builds cells through the compile cache.
//
// A course is someone else's repository and may commit .lessons/work/NAME
// as a link to a folder elsewhere; Run would then write there and Restart
// empty it. The workspace is made through safefs.Dir, which refuses a
// link anywhere on its way from the course's root.
package workspace

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/nvccwrap"
	"github.com/cudalessons/lessons/internal/safefs"
)

// For is the workspace of lesson l, made if it is not there: in course c
// when c is not nil, else in the cache under the lesson's name and a hash
// of its path.
func For(c *course.Course, l *lesson.Lesson) (string, error) {
	name := strings.TrimSuffix(filepath.Base(l.Path), filepath.Ext(l.Path))
	if c != nil {
		return safefs.Dir(c.Root, filepath.Join(".lessons", "work", name))
	}
	cache, err := buildcache.Default()
	if err != nil {
		return "", err
	}
	abs, _ := filepath.Abs(l.Path)
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache.Dir, "work", name+"-"+hex.EncodeToString(sum[:4])), nil
}

// WrapperTarget is what a cell's nvcc links to: lessons-nvcc beside this
// program when it is a regular executable file there (go install
// ./cmd/... puts it there; scripts/build.sh builds it into bin/), else
// this program, which is the same wrapper when run as nvcc.
func WrapperTarget() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	small := filepath.Join(filepath.Dir(self), nvccwrap.Binary)
	if fi, err := os.Stat(small); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 && sameBuild(self, small) {
		return small, nil
	}
	return self, nil
}

// sameBuild says whether the programs a and b were built from the same
// source (module version and VCS revision, time and modified mark), so
// that an older lessons-nvcc left beside a newer lessons is not used: the
// cache's format is theirs to share.
func sameBuild(a, b string) bool {
	ia, err1 := buildinfo.ReadFile(a)
	ib, err2 := buildinfo.ReadFile(b)
	if err1 != nil || err2 != nil || ia.Main.Version != ib.Main.Version || ia.GoVersion != ib.GoVersion {
		return false
	}
	for _, k := range []string{"vcs.revision", "vcs.time", "vcs.modified"} {
		if setting(ia, k) != setting(ib, k) {
			return false
		}
	}
	return true
}

func setting(i *debug.BuildInfo, key string) string {
	for _, s := range i.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// WrapperName is the folder in a workspace that holds its nvcc wrapper.
const WrapperName = ".lessons-bin"

// WrapperDir is where workspace ws keeps its nvcc wrapper.
func WrapperDir(ws string) string { return filepath.Join(ws, WrapperName) }

// MakeWrapper puts an nvcc in ws's wrapper folder, so that nvcc in a cell
// builds through the cache: a link to lessons-nvcc where it is installed
// beside this program (it starts several times faster: WrapperTarget),
// else to this program. The folder may not be a link: the wrapper would
// land wherever it points.
func MakeWrapper(ws string) error {
	self, err := WrapperTarget()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	if _, err := safefs.Dir(ws, WrapperName); err != nil {
		return err
	}
	// Through the folder as opened, not its path again: a class's cell of
	// the same workspace, still running, could swap the folder for a link
	// between the check and the write, and the server (root) would then
	// remove and link "nvcc" wherever it leads.
	root, err := os.OpenRoot(ws)
	if err != nil {
		return err
	}
	defer root.Close()
	bin, err := root.OpenRoot(WrapperName)
	if err != nil {
		return err
	}
	defer bin.Close()
	if cur, err := bin.Readlink("nvcc"); err == nil && cur == self {
		return nil
	}
	if err := bin.Remove("nvcc"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return bin.Symlink(self, "nvcc")
}
