package buildcache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// A shared cache is one that many people's builds hit, as the class
// server's is: thirty students' copies of one stub build once. Its
// entries are written only by a trusted builder (the server), each from
// a build in a folder of its own that holds nothing but the files its key
// hashes (Inputs), with flags that name no other file; the students' nvcc
// wrappers only read it (GetShared). So an entry is what a clean build of
// exactly its key's files gives: a student gets another's binary only
// for the very same files and flags, whatever else lay in either's
// folder. Its folders can be entered by the runs' users but not listed
// (Put), so an entry is found only by who has the files it was built
// from.

// NotSharedError is a build the shared cache does not take: it ran as it
// is, through the student's own cache.
type NotSharedError struct{ Why string }

func (e *NotSharedError) Error() string { return "not for the shared cache: " + e.Why }

func notShared(format string, a ...any) error {
	return &NotSharedError{Why: fmt.Sprintf(format, a...)}
}

// sharedFlags are the flags, alone, that a shared build may have: none
// names a file.
var sharedFlags = map[string]bool{
	"-g": true, "-G": true, "-lineinfo": true, "--generate-line-info": true, "-w": true,
	"-O0": true, "-O1": true, "-O2": true, "-O3": true, "--use_fast_math": true, "-use_fast_math": true,
	"--expt-relaxed-constexpr": true, "--extended-lambda": true, "-Wno-deprecated-gpu-targets": true,
	"-lcuda": true, "-lcudart": true, "-lcublas": true, "-lcublasLt": true, "-lcurand": true, "-lcufft": true,
	"-lcusparse": true, "-lcusolver": true, "-lnvToolsExt": true, "-lnvidia-ml": true, "-lpthread": true, "-lm": true,
}

// sharedValued are the flags whose value, joined by = or as the next
// argument, is no file.
var sharedValued = map[string]bool{
	"-arch": true, "--gpu-architecture": true, "-code": true, "--gpu-code": true, "-gencode": true, "--generate-code": true,
	"-std": true, "--std": true, "-rdc": true, "--relocatable-device-code": true, "-cudart": true, "--cudart": true,
	"-maxrregcount": true, "--maxrregcount": true,
}

var sharedSource = map[string]bool{".cu": true, ".c": true, ".cc": true, ".cpp": true, ".cxx": true}

// SharedEnv are the variables that change what nvcc or its host
// compiler builds: their values are part of a shared key, so a cell that
// sets one builds for itself.
var SharedEnv = []string{"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN", "CPATH", "C_INCLUDE_PATH",
	"CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "GCC_EXEC_PREFIX", "COMPILER_PATH", "LD_PRELOAD", "LD_LIBRARY_PATH"}

// hostCompilers are the programs nvcc finds on the PATH: where they are
// is part of a shared key.
var hostCompilers = []string{"gcc", "g++"}

// checkShared says why cmd is not for the shared cache, nil when it is.
func checkShared(cmd Command) error {
	if !cmd.Cacheable {
		return notShared("a command line the cache does not understand")
	}
	if !filepath.IsLocal(cmd.Output) {
		return notShared("the output %s is outside the folder", cmd.Output)
	}
	for i := 0; i < len(cmd.Args); i++ {
		a := cmd.Args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case a == "-o":
			i++
		case sharedFlags[a], strings.HasPrefix(a, "-D") && len(a) > 2:
		case sharedValued[name]:
			if !hasValue {
				i++
			}
		case a == "-D" && i+1 < len(cmd.Args):
			i++
		case strings.HasPrefix(a, "-"):
			return notShared("the flag %s", a)
		case sharedSource[strings.ToLower(filepath.Ext(a))] && filepath.IsLocal(a):
		default:
			return notShared("the argument %s", a)
		}
	}
	return nil
}

var angleIncludeRE = regexp.MustCompile(`^\s*#\s*include\s*<([^>]*)>`)

// Inputs are the files a shared build hashes and is built from, by
// their names in the build's folder.
type Inputs map[string][]byte

// SharedKey hashes what a shared build of cmd decides its output by: the
// compiler, the flags, the variables of SharedEnv and the host compilers
// as env gives them, and each source and each local header it includes
// ("..." naming a file beside the includer), read through read. It
// returns those files too, for the build's folder. A command with a
// flag that could name another file, or an include that leaves the
// folder, is a NotSharedError.
func SharedKey(c Compiler, cmd Command, env []string, read func(name string) ([]byte, error)) (string, Inputs, error) {
	if err := checkShared(cmd); err != nil {
		return "", nil, err
	}
	files := Inputs{}
	var walk func(name string) error
	walk = func(name string) error {
		if _, ok := files[name]; ok {
			return nil
		}
		data, err := read(name)
		if err != nil {
			return err
		}
		files[name] = data
		for line := range strings.Lines(string(data)) {
			if m := angleIncludeRE.FindStringSubmatch(line); m != nil && (filepath.IsAbs(m[1]) || strings.Contains(m[1], "..")) {
				return notShared("%s includes <%s>", name, m[1])
			}
			m := includeRE.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			inc := filepath.Join(filepath.Dir(name), m[1])
			if filepath.IsAbs(m[1]) || !filepath.IsLocal(inc) {
				return notShared("%s includes %q, outside the folder", name, m[1])
			}
			switch err := walk(inc); {
			case errors.Is(err, fs.ErrNotExist):
				delete(files, inc) // a header of the system's: not the folder's
			case err != nil:
				return err
			}
		}
		return nil
	}
	for _, s := range cmd.Sources {
		if err := walk(s); err != nil {
			return "", nil, err
		}
	}
	h := sha256.New()
	fmt.Fprintf(h, "lessons-nvcc-shared-1\x00%s\x00%s\x00", c.Path, c.Version)
	for _, a := range cmd.Args {
		if a == cmd.Output {
			a = "\x00out"
		}
		fmt.Fprintf(h, "%s\x00", a)
	}
	for _, v := range SharedEnv {
		fmt.Fprintf(h, "%s=%s\x00", v, lookupEnv(env, v))
	}
	for _, p := range hostCompilers {
		fmt.Fprintf(h, "%s at %s\x00", p, LookPath(p, lookupEnv(env, "PATH")))
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(h, "file %s %d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil)), files, nil
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// LookPath is where prog is on path (a PATH's value), "" when nowhere.
func LookPath(prog, path string) string {
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, prog)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Has tells whether the cache holds key, and marks it used.
func (c *Cache) Has(key string) bool {
	dir := c.entry(key)
	if _, err := os.Stat(filepath.Join(dir, outName)); err != nil {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(dir, now, now)
	return true
}

// GetShared copies the shared cache's build of the nvcc command line
// args, run in dir with env, to its output, and returns what the
// compiler printed; ok is false when the cache has none or the command
// is not for it. It only reads the cache.
func (c *Cache) GetShared(comp Compiler, args []string, dir string, env []string) (log []byte, ok bool) {
	cmd := Parse(args, comp.Arch)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, false
	}
	defer root.Close()
	key, _, err := SharedKey(comp, cmd, env, func(name string) ([]byte, error) { return root.ReadFile(name) })
	if err != nil {
		return nil, false
	}
	log, ok, err = c.Get(key, filepath.Join(dir, cmd.Output))
	return log, ok && err == nil
}
