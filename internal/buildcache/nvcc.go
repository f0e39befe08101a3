package buildcache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/safefs"
)

// Compiler is the nvcc a build runs.
type Compiler struct {
	Path    string
	Version string
	// Arch is added as -arch=Arch when the command names no architecture
	// (the GPU's own, e.g. sm_90); empty adds nothing.
	Arch string
}

// Command is an nvcc command line, read for what decides its output.
type Command struct {
	Args   []string // as given, plus -arch when it was added
	Output string   // the -o file; "" when there is none
	// outAt is the index in Args of the argument that names Output:
	// the value after -o, or the argument itself when the flag comes with
	// it (outFlag: "-o", "-o=" or "--output-file=", nvcc's spellings).
	outAt   int
	outFlag string
	Sources []string
	// Cacheable is false for command lines the cache does not understand
	// (no -o, no source, more than one output): they run as they are.
	Cacheable bool
}

// flags of nvcc that take a value as the next argument.
var valued = map[string]bool{
	"-o": true, "--output-file": true, "-I": true, "--include-path": true, "-L": true, "--library-path": true,
	"-l": true, "--library": true, "-D": true, "--define-macro": true, "-U": true, "-arch": true,
	"--gpu-architecture": true, "-code": true, "--gpu-code": true, "-gencode": true, "--generate-code": true,
	"-Xcompiler": true, "--compiler-options": true, "-Xlinker": true, "--linker-options": true, "-x": true,
	"-ccbin": true, "--compiler-bindir": true, "-std": true, "-rdc": true, "-cudart": true, "--cudart": true,
	"-maxrregcount": true, "-include": true, "-Xptxas": true, "-odir": true, "-MF": true, "-t": true, "--threads": true,
}

var sourceExt = map[string]bool{".cu": true, ".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".o": true, ".obj": true, ".a": true}

// noCache are flags whose effect the cache cannot capture. -MD and -MMD
// write a dependency file named after the output (t.o gives t.d): a hit
// writes none, and a build into a file beside the output names it after
// that file (t.o.build-NNN gives t.o.d, seen with nvcc 11.8).
var noCache = map[string]bool{"-run": true, "--run": true, "-M": true, "-MM": true, "-E": true, "--preprocess": true, "-odir": true, "-keep": true, "--keep": true, "-lib": true,
	"--generate-dependencies": true, "--generate-nonsystem-dependencies": true,
	"-MD": true, "-MMD": true, "-MF": true, "--generate-dependencies-with-compile": true,
	"--generate-nonsystem-dependencies-with-compile": true, "--dependency-output": true}

// Parse reads an nvcc command line; arch is added when none is named.
func Parse(args []string, arch string) Command {
	cmd := Command{Args: append([]string(nil), args...), Cacheable: true}
	hasArch := false
	outputs := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case noCache[name]:
			cmd.Cacheable = false
		case name == "-arch" || name == "--gpu-architecture" || name == "-gencode" || name == "--generate-code":
			hasArch = true
			if !hasValue {
				i++
			}
		case a == "-o" || a == "--output-file":
			if i+1 < len(args) {
				cmd.Output, cmd.outAt, cmd.outFlag = args[i+1], i+1, ""
				outputs++
			}
			i++
		case (name == "-o" || name == "--output-file") && hasValue:
			// -o=FILE and --output-file=FILE: nvcc writes FILE.
			cmd.Output, cmd.outAt, cmd.outFlag = a[len(name)+1:], i, name+"="
			outputs++
		case strings.HasPrefix(a, "-o") && len(a) > 2 && !strings.HasPrefix(a, "-odir"):
			cmd.Output, cmd.outAt, cmd.outFlag = a[2:], i, "-o"
			outputs++
		case valued[a]:
			i++
		case strings.HasPrefix(a, "-"):
		case sourceExt[strings.ToLower(filepath.Ext(a))]:
			cmd.Sources = append(cmd.Sources, a)
		}
	}
	if arch != "" && !hasArch {
		cmd.Args = append(cmd.Args, "-arch="+arch)
	}
	if outputs != 1 || len(cmd.Sources) == 0 {
		cmd.Cacheable = false
	}
	return cmd
}

// withOutput is the command's arguments with its output named out
// instead; cmd is Cacheable (it has exactly one output).
func (cmd Command) withOutput(out string) []string {
	args := append([]string(nil), cmd.Args...)
	args[cmd.outAt] = cmd.outFlag + out
	return args
}

// aside is a random suffix for one build's output, a file beside the
// one the command names: nvcc writes there, and only a whole output
// built from these sources takes that file's place and the cache's entry. Two
// builds that share an output (two checks of one exercise at once, a
// watch and a check) then never write into one file: the cache once
// stored, under a file's key, another build's output half written, and
// every later hit of that file ran it ("exec format error").
func aside() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return ".build-" + hex.EncodeToString(b[:])
}

var includeRE = regexp.MustCompile(`^\s*#\s*include\s*"([^"]+)"`)

// Key hashes what decides the output of cmd, run in dir: the compiler, the
// arguments (the output's name aside), each source and each local header
// it includes, and the environment nvcc reads flags from.
func Key(c Compiler, cmd Command, dir string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "lessons-nvcc-1\x00%s\x00%s\x00", c.Path, c.Version)
	for _, a := range cmd.Args {
		if a == cmd.Output {
			a = "\x00out"
		}
		fmt.Fprintf(h, "%s\x00", a)
	}
	for _, v := range []string{"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN"} {
		fmt.Fprintf(h, "%s=%s\x00", v, os.Getenv(v))
	}
	seen := map[string]bool{}
	var walk func(path string) error
	walk = func(path string) error {
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, path)
		}
		if seen[abs] {
			return nil
		}
		seen[abs] = true
		data, err := readSource(abs)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "file %s %d\x00", path, len(data))
		h.Write(data)
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			m := includeRE.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			inc := filepath.Join(filepath.Dir(path), m[1])
			if _, err := os.Stat(filepath.Join(dir, inc)); err != nil && !filepath.IsAbs(inc) {
				continue // a header from -I or the system: not the lesson's to change
			}
			if err := walk(inc); err != nil {
				return err
			}
		}
		return nil
	}
	for _, s := range cmd.Sources {
		if err := walk(s); err != nil {
			return "", fmt.Errorf("hash %s: %w", s, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// MaxHashed is the largest file Key reads: no source or header of a
// lesson comes near it.
const MaxHashed = 64 << 20

// readSource reads a file that a build's key hashes: a regular file of at
// most MaxHashed bytes. Key runs in the grader, outside every sandbox,
// and a local include may leave the folder ("../../../../dev/zero", a
// classmate's FIFO): such a file is an error, never waited on or read to
// its end, and the build then runs uncached, in its sandbox, where nvcc
// says what it makes of it.
func readSource(name string) ([]byte, error) {
	data, err := safefs.ReadRegular(name, MaxHashed)
	if err != nil {
		return nil, fmt.Errorf("hash a build's source: %w", err)
	}
	return data, nil
}

// Result is what a build through the cache did.
type Result struct {
	Hit bool
	Run *runner.Result // nil on a hit
}

// Build runs an nvcc command line in dir through the cache, printing what
// the compiler prints (replayed on a hit) to out.
func (c *Cache) Build(ctx context.Context, r runner.Runner, comp Compiler, args []string, dir string, env []string, out io.Writer) (*Result, error) {
	return c.BuildStreams(ctx, r, comp, args, dir, env, out, nil)
}

// BuildStreams is Build with nvcc's standard error apart from its output
// (nil: both to out), as the nvcc wrapper in a cell needs: `nvcc
// --version | tail -1` pipes only the output. A hit replays what the
// build printed to errOut: nvcc's messages about a build are on stderr.
func (c *Cache) BuildStreams(ctx context.Context, r runner.Runner, comp Compiler, args []string, dir string, env []string, out, errOut io.Writer) (*Result, error) {
	apart := errOut
	spec := func(argv []string, _ *bytes.Buffer) runner.Spec {
		s := runner.Spec{Argv: argv, Dir: dir, Env: env}
		if apart != nil {
			s.Stderr = apart
		}
		return s
	}
	if errOut == nil {
		errOut = out
	}
	cmd := Parse(args, comp.Arch)
	argv := append([]string{comp.Path}, cmd.Args...)
	if !cmd.Cacheable {
		res, err := r.Run(ctx, spec(argv, nil), out)
		return &Result{Run: res}, err
	}
	key, err := Key(comp, cmd, dir)
	if err != nil {
		// A missing source: let nvcc say so in its own words.
		res, err := r.Run(ctx, spec(argv, nil), out)
		return &Result{Run: res}, err
	}
	outPath := cmd.Output
	if !filepath.IsAbs(outPath) {
		outPath = filepath.Join(dir, outPath)
	}
	if st, err := os.Lstat(outPath); err == nil && !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
		// An output that is no file (/dev/null, a folder): nvcc writes it,
		// or says why not, as it would without the cache; nothing is kept,
		// and nothing is written beside it (a file beside /dev/null cannot
		// be made).
		res, err := r.Run(ctx, spec(argv, nil), out)
		return &Result{Run: res}, err
	}
	if log, ok, err := c.Get(key, outPath); err == nil && ok {
		c.Note(true)
		errOut.Write(log)
		return &Result{Hit: true}, nil
	}
	var log bytes.Buffer
	// Both streams go into one log, from two copying goroutines.
	logw := &lockedWriter{w: &log}
	// nvcc runs in dir (in a sandbox, at the same path), so a relative
	// output stays relative, with the suffix.
	suffix := aside()
	built, named := outPath+suffix, cmd.Output+suffix
	s := spec(append([]string{comp.Path}, cmd.withOutput(named)...), nil)
	if s.Stderr != nil {
		s.Stderr = io.MultiWriter(apart, logw)
	}
	res, err := r.Run(ctx, s, io.MultiWriter(out, logw))
	defer os.Remove(built)
	if err != nil {
		return nil, err
	}
	c.Note(false)
	if _, err := os.Stat(built); res.OK() && err == nil {
		// (A compiler that ends well and writes nothing, as a stand-in
		// nvcc does, leaves nothing to keep or put in place.)
		if err := c.Put(key, built, log.Bytes()); err != nil {
			fmt.Fprintf(errOut, "lessons: could not keep the build in the cache: %v\n", err)
		}
		if err := os.Rename(built, outPath); err != nil {
			return nil, fmt.Errorf("put the build in place: %w", err)
		}
	}
	return &Result{Run: res}, nil
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
