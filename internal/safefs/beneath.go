// Package safefs touches files that untrusted input names or put there
// (a course cloned from someone else's repository, a lesson's cells, a
// submission), safely, in three ways:
//
//   - by name, never outside the folder a name belongs to (WriteFile,
//     ReadFile, Stat, Remove, Dir, ...: beneath.go);
//   - by content, a regular file of a bounded size only (ReadRegular:
//     regular.go);
//   - whole or not at all when written (WriteAtomic: atomic.go).
//
// A course's names ("../../.bashrc", an exercise id of "../../x") and its
// links (.lessons/work/day001 committed as a link to $HOME) are an
// attacker's. Every name goes through os.Root, which resolves each part
// of a path by descriptor, beneath the root: ".." above the root, an
// absolute name and a link that leads out are refused, not followed,
// with no window between a check and the use. Links that stay inside are
// followed, since a course may link one of its files to another. Folders
// lessons makes for its own state (.lessons/work, .lessons/check) hold no
// link it made, so Dir refuses any link on their way.
package safefs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Error is a name that leads out of its root, or through a link where
// none may be.
type Error struct {
	Op   string // what was being done: "write", "remove", "make folder"
	Root string
	Name string
	Why  string
	// At is the part of Name that is a link, where that is why.
	At string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %s; lessons reaches only what is inside %s", e.Op, e.Name, e.Why, e.Root)
}

// Local says why name, from untrusted input, is not a path inside a
// folder: it must be relative, with no ".." that climbs out. It looks at
// the name only; the functions below also refuse links that lead out.
func Local(name string) error {
	switch {
	case name == "":
		return errors.New("the name is empty")
	case filepath.IsAbs(name) || strings.HasPrefix(name, "/"):
		return errors.New("it is an absolute path; name it from the folder, without a leading /")
	case !filepath.IsLocal(filepath.FromSlash(name)):
		return errors.New("it climbs out of the folder with ..")
	}
	return nil
}

// open opens root for op on name, after Local's look at name.
func open(op, root, name string) (*os.Root, error) {
	if err := Local(name); err != nil {
		return nil, &Error{Op: op, Root: root, Name: name, Why: err.Error()}
	}
	return os.OpenRoot(root)
}

// wrap names root in what os.Root says of a name that escapes.
func wrap(op, root, name string, err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "escapes from parent") {
		return &Error{Op: op, Root: root, Name: name, Why: "a link on its way leads out of the folder"}
	}
	return err
}

// WriteFile writes data to name beneath root with perm, whole or not at
// all (WriteAtomicIn), making the folders on its way.
func WriteFile(root, name string, data []byte, perm fs.FileMode) error {
	r, err := open("write", root, name)
	if err != nil {
		return err
	}
	defer r.Close()
	if dir := filepath.Dir(filepath.FromSlash(name)); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return wrap("write", root, name, err)
		}
	}
	return wrap("write", root, name, WriteAtomicIn(r, filepath.FromSlash(name), bytes.NewReader(data), perm))
}

// MaxRead is the largest file ReadFile reads.
const MaxRead = 64 << 20

// ReadFile reads name beneath root: a regular file of at most MaxRead
// bytes, never waited on (what a course or a student's cell leaves in a
// folder may be a FIFO).
func ReadFile(root, name string) ([]byte, error) {
	r, err := open("read", root, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := ReadRegularIn(r, filepath.FromSlash(name), MaxRead)
	return data, wrap("read", root, name, err)
}

// Stat is what name beneath root is, links inside root followed.
func Stat(root, name string) (fs.FileInfo, error) {
	r, err := open("read", root, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st, err := r.Stat(filepath.FromSlash(name))
	return st, wrap("read", root, name, err)
}

// Remove removes name beneath root (a link itself, never what it
// points to); a name that is not there is no error.
func Remove(root, name string) error {
	r, err := open("remove", root, name)
	if err != nil {
		return err
	}
	defer r.Close()
	err = r.Remove(filepath.FromSlash(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return wrap("remove", root, name, err)
}

// RemoveAll removes name beneath root and what it holds, never following
// a link out of root.
func RemoveAll(root, name string) error {
	r, err := open("remove", root, name)
	if err != nil {
		return err
	}
	defer r.Close()
	return wrap("remove", root, name, r.RemoveAll(filepath.FromSlash(name)))
}

// Dir makes the folder name beneath root, for lessons' own state, and
// returns its path. No part of name may be a link, or anything but a
// folder: lessons makes none there, so one is a course's trap (a
// workspace linked to $HOME would have Restart empty $HOME).
func Dir(root, name string) (string, error) {
	r, err := open("make folder", root, name)
	if err != nil {
		return "", err
	}
	defer r.Close()
	cur := ""
	for _, part := range strings.Split(filepath.Clean(filepath.FromSlash(name)), string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		st, err := r.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			if err = r.Mkdir(cur, 0o755); errors.Is(err, fs.ErrExist) {
				err = nil
			}
			if err == nil {
				st, err = r.Lstat(cur)
			}
		}
		if err != nil {
			return "", wrap("make folder", root, name, err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", &Error{Op: "make folder", Root: root, Name: name, At: cur, Why: cur + " is a link (lessons makes none there: remove it)"}
		}
		if !st.IsDir() {
			return "", &Error{Op: "make folder", Root: root, Name: name, Why: cur + " is not a folder (remove it)"}
		}
	}
	return filepath.Join(root, filepath.FromSlash(name)), nil
}

// DirAgain is Dir for a folder that a program run inside root may have
// replaced (a workspace's .tmp made a file or a link by a cell): a file
// or link at name itself is removed first and the folder made again.
// Anything above name is held to Dir's rules.
func DirAgain(root, name string) (string, error) {
	r, err := open("make folder", root, name)
	if err != nil {
		return "", err
	}
	st, err := r.Lstat(filepath.FromSlash(name))
	if err == nil && !st.IsDir() {
		err = r.Remove(filepath.FromSlash(name))
	} else if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	r.Close()
	if err != nil {
		return "", wrap("make folder", root, name, err)
	}
	return Dir(root, name)
}

// NoLinks says which part of name beneath root is a link, or is missing:
// for a submission's folders, where a link (day001 -> ../alice) would
// hand in another's work.
func NoLinks(root, name string) error {
	r, err := open("read", root, name)
	if err != nil {
		return err
	}
	defer r.Close()
	cur := ""
	for _, part := range strings.Split(filepath.Clean(filepath.FromSlash(name)), string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		st, err := r.Lstat(cur)
		if err != nil {
			return wrap("read", root, name, err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return &Error{Op: "read", Root: root, Name: name, At: cur, Why: cur + " is a link"}
		}
	}
	return nil
}
