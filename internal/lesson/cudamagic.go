package lesson

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
)

// CUDAMagic is a cell of nvcc4jupyter, the CUDA extension courses on Colab
// load: %%cuda (or the older %%cu) compiles and runs the cell as one
// program; %%cuda_group_save keeps it as a file of a group, which
// %%cuda_group_run compiles together and runs, and %%cuda_group_delete
// forgets. Its version 2 (nvcc_plugin's v2, 2019 to 2023) is read too:
// %%cuda --name NAME.cu keeps the cell as a file of the folder src (in
// the notebook's folder, where its ! lines build it), built
// and run alone where it says --compile (with any value: argparse's bool
// of "false" is true), and %%cuda_run builds src's files together.
type CUDAMagic struct {
	// Op is cuda, cuda_group_save, cuda_group_run or cuda_group_delete.
	Op string
	// Name is the file a group_save writes; Group its group.
	Name, Group string
	// CompilerArgs go to nvcc (-c/--compiler-args); ProfilerArgs to the
	// profiler that --profile runs the program under.
	CompilerArgs, ProfilerArgs string
	Profile, Timeit            bool
	// Run is version 2's --compile: a saved file also built and run
	// alone.
	Run bool
	// V2 marks a cell of version 2, whose files are in src in the
	// notebook's own folder.
	V2 bool
	// Refused is why the extension fails the cell when it runs (a
	// version 2 name that does not end in .cu or .h), "" for most.
	Refused string
}

// v2Group is the folder nvcc4jupyter's version 2 keeps its files in.
const v2Group = "src"

// cudaMagics are the cell magics of nvcc4jupyter.
var cudaMagics = map[string]string{"%%cu": "cuda", "%%cuda": "cuda", "%%cuda_group_save": "cuda_group_save", "%%cuda_group_run": "cuda_group_run", "%%cuda_group_delete": "cuda_group_delete", "%%cuda_run": "cuda_group_run"}

// IsCUDAMagic reports whether a cell's first line is one of nvcc4jupyter's.
func IsCUDAMagic(first string) bool {
	f := strings.Fields(first)
	return len(f) > 0 && cudaMagics[f[0]] != ""
}

// ParseCUDAMagic reads an nvcc4jupyter magic line, as its argparse does.
func ParseCUDAMagic(line string) (*CUDAMagic, error) {
	args := SplitArgs(line)
	if len(args) == 0 || cudaMagics[args[0]] == "" {
		return &CUDAMagic{Op: "cuda"}, fmt.Errorf("%q is not a magic of nvcc4jupyter", line)
	}
	m := &CUDAMagic{Op: cudaMagics[args[0]]}
	if args[0] == "%%cuda_run" {
		m.Group, m.V2 = v2Group, true
	}
	if args[0] == "%%cuda" && slices.ContainsFunc(args[1:], func(a string) bool {
		name, _, _ := strings.Cut(a, "=")
		return name == "-n" || name == "--name"
	}) {
		return parseCUDAv2(args)
	}
	value := func(i *int, a string) (string, error) {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
			return v, nil
		}
		if *i+1 >= len(args) {
			return "", fmt.Errorf("%s needs a value", a)
		}
		*i++
		return args[*i], nil
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		name, _, _ := strings.Cut(a, "=")
		var err error
		switch name {
		case "-n", "--name":
			m.Name, err = value(&i, a)
		case "-g", "--group":
			m.Group, err = value(&i, a)
		case "-c", "--compiler-args":
			m.CompilerArgs, err = value(&i, a)
		case "--profiler-args":
			m.ProfilerArgs, err = value(&i, a)
		case "-p", "--profile":
			m.Profile = true
		case "-t", "--timeit":
			m.Timeit = true
		default:
			return m, fmt.Errorf("%s: unknown argument %s (nvcc4jupyter takes -n NAME, -g GROUP, -c ARGS, -p, -t, --profiler-args ARGS)", args[0], a)
		}
		if err != nil {
			return m, fmt.Errorf("%s: %v", args[0], err)
		}
	}
	switch {
	case m.Op == "cuda_group_save" && (m.Name == "" || m.Group == ""):
		return m, fmt.Errorf("%%%%cuda_group_save needs -n NAME and -g GROUP")
	case (m.Op == "cuda_group_run" || m.Op == "cuda_group_delete") && m.Group == "":
		return m, fmt.Errorf("%%%%%s needs -g GROUP", m.Op)
	}
	for _, p := range []string{m.Name, m.Group} {
		if strings.ContainsAny(p, "/\\\x00") || p == ".." || p == "." {
			return m, fmt.Errorf("%q is not a plain file or group name", p)
		}
	}
	return m, nil
}

// parseCUDAv2 reads version 2's %%cuda line: -n/--name NAME (.cu or .h),
// -c/--compile VALUE; -t, -p and --profiler-args as version 1 has them.
func parseCUDAv2(args []string) (*CUDAMagic, error) {
	m := &CUDAMagic{Op: "cuda_group_save", Group: v2Group, V2: true}
	for i := 1; i < len(args); i++ {
		name, v, eq := strings.Cut(args[i], "=")
		takes := name == "-n" || name == "--name" || name == "-c" || name == "--compile" || name == "--profiler-args"
		if takes && !eq {
			if i+1 >= len(args) {
				return m, fmt.Errorf("%%%%cuda: %s needs a value", name)
			}
			i++
			v = args[i]
		}
		switch name {
		case "-n", "--name":
			m.Name = v
		case "-c", "--compile":
			m.Run = v != ""
		case "--profiler-args":
			m.ProfilerArgs = v
		case "-p", "--profile":
			m.Profile = true
		case "-t", "--timeit":
			m.Timeit = true
		default:
			return m, fmt.Errorf("%%%%cuda: unknown argument %s (nvcc4jupyter 2 takes -n NAME, -c BOOL, -p, -t, --profiler-args ARGS)", args[i])
		}
	}
	if ext := path.Ext(m.Name); ext != ".cu" && ext != ".h" {
		// the extension fails the cell, not the notebook: so does a run
		m.Refused = fmt.Sprintf("%%%%cuda --name %s: nvcc4jupyter 2 takes only names that end with .cu or .h", m.Name)
	}
	if strings.ContainsAny(m.Name, "/\\\x00") || strings.ContainsFunc(m.Name, unicode.IsControl) || m.Name == ".." || m.Name == "." {
		return m, fmt.Errorf("%q is not a plain file name", m.Name)
	}
	return m, nil
}

// SplitArgs splits a command line as a shell would its words: spaces
// apart, quotes ('...' and "...") kept together and removed.
func SplitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case unicode.IsSpace(r):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// CUDASetup reports whether a cell only installs or loads nvcc4jupyter
// (`!pip install nvcc4jupyter`, `%load_ext nvcc4jupyter`, the older
// nvcc_plugin): lessons runs the extension's cells itself, so such a
// cell has nothing to do here, and on a machine without a network its
// pip would fail the run at its first cell.
func CUDASetup(c *Cell) bool {
	if c.Kind != Command && c.Kind != Python || c.CUDA != nil {
		return false
	}
	seen := false
	for _, l := range strings.Split(c.Text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		l = strings.TrimLeft(l, "!%")
		f := strings.Fields(l)
		switch {
		case len(f) == 2 && (f[0] == "load_ext" || f[0] == "reload_ext") && (f[1] == "nvcc4jupyter" || f[1] == "nvcc_plugin"):
		case len(f) >= 3 && slices.Contains(f, "install") && (strings.HasPrefix(f[0], "pip") || f[0] == "python" || f[0] == "python3") && pipOnly(f, "nvcc4jupyter"):
		default:
			return false
		}
		seen = true
	}
	return seen
}

// pipOnly tells whether a pip command installs only pkg (by name, or
// from its git repository).
func pipOnly(f []string, pkg string) bool {
	found := false
	for _, a := range f[slices.Index(f, "install")+1:] {
		switch {
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, pkg):
			found = true
		default:
			return false
		}
	}
	return found
}
