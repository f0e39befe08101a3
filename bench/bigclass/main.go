// Command bigclass makes a class at the size of a real course, for
// lessons grade: N students, each handing in every exercise of the
// course, each file one of what a class hands in (the solution, one of its
// correct alternatives, the untouched exercise, one of its wrong answers,
// a file that does not compile, a hostile program, or nothing), every
// copy differing from the others (a comment naming its student), and the
// grade each was made to get; then, once the class is graded, it checks
// the gradebook against that: every grade as made, none lost, none
// recorded twice (a grade killed with kill -9 half way and run again
// included).
//
//	bigclass gen -course . -out /tmp/big -n 1000
//	lessons grade /tmp/big/subs --gradebook /tmp/big/gradebook.db
//	bigclass check -out /tmp/big
//
// bigclass each makes instead a class of one student per solution,
// correct alternative and wrong answer, each handing in that file alone:
// every program of the course graded once.
//
// With -fake it makes a course of its own beside the class, with the
// course's exercises by name, a fake nvcc that makes a shell script of a
// file's "// fake:" lines, and files whose scripts pass or fail: the same
// class, graded on a machine without a GPU (LESSONS_GPU), to test the
// grader at that size (bench/bigclass.sh, FAKE=1).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/wrong"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	root := fs.String("course", ".", "the course's folder")
	out := fs.String("out", "", "the class's folder (subs/, expected.tsv; with -fake course/ and bin/ too)")
	n := fs.Int("n", 100, "students")
	fake := fs.Bool("fake", false, "make a course of fake programs beside the class, for a machine without a GPU")
	book := fs.String("gradebook", "", "the gradebook (check; default OUT/gradebook.db)")
	fs.Parse(os.Args[2:])
	if *out == "" {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		var sum map[string]int
		sum, err = generate(*root, *out, *n, *fake)
		if err == nil {
			fmt.Printf("bigclass: %d students × the course's exercises in %s\n", *n, filepath.Join(*out, "subs"))
			printKinds(sum)
		}
	case "each":
		var k int
		k, err = each(*root, *out)
		if err == nil {
			fmt.Printf("bigclass: %d students, each with one file: every solution, correct alternative and wrong answer, in %s\n", k, filepath.Join(*out, "subs"))
		}
	case "check":
		if *book == "" {
			*book = filepath.Join(*out, "gradebook.db")
		}
		err = check(*out, *book)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bigclass:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: bigclass gen -course DIR -out DIR -n STUDENTS [-fake]\n       bigclass each -course DIR -out DIR\n       bigclass check -out DIR [-gradebook FILE]")
	os.Exit(2)
}

// file is what one student hands in for one exercise: its kind, the
// grade it must get, and its text (nil: nothing handed in).
type file struct {
	kind, want string
	data       []byte
}

// choices are the files of one exercise a student may hand in, each as
// often in the class as it is listed: mostly the solution and its
// alternatives, then each mistake once.
type choices struct {
	x      *course.Exercise
	files  []file
	stride int // generate's step through files: strideFor(len(files))
}

// Weights of a class: of every 42 files of an exercise, about 20 are the
// solution, a few the untouched file, nothing, a compile error, and the
// rest each wrong answer, each alternative and one hostile program.
const (
	weightCorrect   = 20
	weightRight     = 2
	weightUntouched = 2
	weightMissing   = 2
)

func generate(root, out string, n int, fake bool) (map[string]int, error) {
	c, err := course.Load(root)
	if err != nil {
		return nil, err
	}
	subs := filepath.Join(out, "subs")
	if err := os.MkdirAll(subs, 0o755); err != nil {
		return nil, err
	}
	if ents, _ := os.ReadDir(subs); len(ents) > 0 {
		return nil, fmt.Errorf("%s is not empty: give -out a new folder", subs)
	}
	hostile, err := hostiles(root, out)
	if err != nil {
		return nil, err
	}
	var all []choices
	for _, x := range c.Exercises {
		ch, err := exerciseChoices(c, x, hostile)
		if err != nil {
			return nil, err
		}
		if fake {
			ch = fakeChoices(ch)
		}
		all = append(all, choices{x: x, files: ch, stride: strideFor(len(ch))})
	}
	if fake {
		if err := fakeCourse(c, out); err != nil {
			return nil, err
		}
	}
	exp, err := os.Create(filepath.Join(out, "expected.tsv"))
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(exp)
	sum := map[string]int{}
	hostileNext := 0
	for i := range n {
		student := fmt.Sprintf("s%04d", i)
		for j, ch := range all {
			// Student i's file of exercise j: a walk through the
			// choices with a stride coprime to their count (101, or
			// the next number that is: stream-pools once had 101
			// choices, and every student handed in the same one), so
			// that every choice comes once in each len(files) students.
			f := ch.files[(i*ch.stride+j*13)%len(ch.files)]
			if f.kind == "hostile" {
				f = hostile[hostileNext%len(hostile)]
				hostileNext++
				if strings.HasSuffix(ch.x.Student, ".h") || fake {
					f = file{kind: "compile_error", want: "failed", data: brokenCopy(ch.files[0].data)}
				}
			}
			if fake && f.kind == "compile_error" {
				f.data = []byte("// fake: exit 1\nthis does not compile\n")
			}
			sum[f.kind]++
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", student, ch.x.ID, f.want, f.kind)
			if f.data == nil {
				continue
			}
			rel := strings.TrimPrefix(path.Clean(ch.x.Student), "exercises/")
			p := filepath.Join(subs, student, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			// Every student's copy differs, as real ones do: no two
			// share a build.
			data := append(append([]byte{}, f.data...), fmt.Sprintf("\n// handed in by %s\n", student)...)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return nil, err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return sum, exp.Close()
}

// each writes a class of one student per solution, correct alternative
// and wrong answer of the course (named after its kind and exercise),
// each handing in that file alone, and expected.tsv as gen writes it:
// what grades every program of the course once (the witness's GPU run).
func each(root, out string) (int, error) {
	c, err := course.Load(root)
	if err != nil {
		return 0, err
	}
	subs := filepath.Join(out, "subs")
	if ents, _ := os.ReadDir(subs); len(ents) > 0 {
		return 0, fmt.Errorf("%s is not empty: give -out a new folder", subs)
	}
	var lines []string
	for _, x := range c.Exercises {
		ch, err := exerciseChoices(c, x, nil)
		if err != nil {
			return 0, err
		}
		seen := map[string]bool{}
		for _, f := range ch {
			if f.data == nil || seen[f.kind] || f.kind == "untouched" || f.kind == "compile_error" {
				continue
			}
			seen[f.kind] = true
			student := strings.ReplaceAll(f.kind, "/", "-") + "-" + x.ID
			rel := strings.TrimPrefix(path.Clean(x.Student), "exercises/")
			p := filepath.Join(subs, student, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return 0, err
			}
			if err := os.WriteFile(p, f.data, 0o644); err != nil {
				return 0, err
			}
			lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%s\n", student, x.ID, f.want, f.kind))
		}
	}
	return len(lines), os.WriteFile(filepath.Join(out, "expected.tsv"), []byte(strings.Join(lines, "")), 0o644)
}

// exerciseChoices lists what a student may hand in for x.
func exerciseChoices(c *course.Course, x *course.Exercise, hostile []file) ([]file, error) {
	sol, err := os.ReadFile(c.Path(x.Solution))
	if err != nil {
		return nil, err
	}
	untouched, err := os.ReadFile(c.Path(x.Student))
	if err != nil {
		return nil, err
	}
	var fs []file
	add := func(times int, f file) {
		for range times {
			fs = append(fs, f)
		}
	}
	add(weightCorrect, file{kind: "correct", want: "passed", data: sol})
	add(weightUntouched, file{kind: "untouched", want: "failed", data: untouched})
	add(weightMissing, file{kind: "missing", want: "missing"})
	add(1, file{kind: "compile_error", want: "failed", data: brokenCopy(sol)})
	answers, err := wrong.List(c, x)
	if err != nil {
		return nil, err
	}
	for _, a := range answers {
		if a.Unseen {
			continue // no check sees it: a class could not tell it from a solution
		}
		p, err := wrong.Load(c, a)
		if err != nil {
			return nil, err
		}
		data := p.Source
		if data == nil {
			if data, err = os.ReadFile(c.Path(a.Path)); err != nil {
				return nil, err
			}
		}
		if a.Right {
			add(weightRight, file{kind: "right/" + a.Stem(), want: "passed", data: data})
		} else {
			add(1, file{kind: "wrong/" + a.Stem(), want: "failed", data: data})
		}
	}
	if len(hostile) > 0 {
		add(1, file{kind: "hostile"})
	}
	return fs, nil
}

// brokenCopy is src with a line that does not compile.
func brokenCopy(src []byte) []byte {
	return append(append([]byte{}, src...), "\nstatic int handed_in_broken = ;\n"...)
}

// hostiles are the hostile programs of bench/class and the forgers of
// the statistics record (internal/exercise/testdata/hostile), with their
// places filled as bench/class.sh fills them: each must fail whatever
// exercise it is handed in for.
func hostiles(root, out string) ([]file, error) {
	var fs []file
	for _, dir := range []string{"bench/class", "internal/exercise/testdata/hostile"} {
		ents, err := os.ReadDir(filepath.Join(root, dir))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".cu") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, dir, e.Name()))
			if err != nil {
				return nil, err
			}
			r := strings.NewReplacer(
				"@CLASSMATE@", filepath.Join(out, "subs", "s0000", "day069", "async_pipeline.cu"),
				"@GRADEBOOK@", filepath.Join(out, "gradebook.db"),
				"@SOLUTION@", filepath.Join(root, "solutions", "day069", "async_pipeline.cu"),
				"@SECRET@", filepath.Join(root, "solutions", "day069", "async_pipeline.toml"),
				"@SOCKET@", "/tmp/lessons-bench.sock")
			fs = append(fs, file{kind: "hostile/" + strings.TrimSuffix(e.Name(), ".cu"), want: "failed", data: []byte(r.Replace(string(data)))})
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].kind < fs[j].kind })
	return fs, nil
}

// fakeChoices are files as the fake course's programs: each prints done
// when it must pass, something else when it must fail, after a moment (a
// CUDA program's start).
func fakeChoices(files []file) []file {
	out := make([]file, len(files))
	for i, f := range files {
		out[i] = f
		switch {
		case f.data == nil:
		case f.want == "passed":
			out[i].data = []byte("// fake: sleep 0.05; echo done\n")
		case f.kind == "compile_error":
			out[i].data = []byte("// fake: exit 1\nthis does not compile\n")
		default:
			// The fake check looks for "done": a kind whose name holds it
			// (wrong/blind20_..._undone_on_overflow) must still fail.
			out[i].data = []byte("// fake: sleep 0.05; echo " + strings.ReplaceAll(f.kind, "done", "d0ne") + "\n")
		}
	}
	return out
}

// fakeCourse writes, in out/course, a course of the real one's exercises
// by name whose programs are the fake nvcc's (out/bin/nvcc): one check,
// that the program prints done.
func fakeCourse(c *course.Course, out string) error {
	dir := filepath.Join(out, "course")
	var toml strings.Builder
	toml.WriteString("title = \"A big class, faked\"\n[[lesson]]\nfile = \"lessons/day001-fake.md\"\n")
	files := map[string]string{"lessons/day001-fake.md": "# Fake\n"}
	for _, x := range c.Exercises {
		fmt.Fprintf(&toml, "\n[[exercise]]\nid = %q\nlesson = \"1\"\nstudent = %q\nsolution = %q\n", x.ID, x.Student, x.Solution)
		files[x.Student] = "// fake: echo stub\n"
		files[x.Solution] = "// fake: echo done\n"
		spec := "points = 10\ntimeout = \"20s\"\n"
		if path.Ext(x.Student) == ".h" {
			// A header is built with a main of the exercise's own.
			spec += "files = [\"main.cu\"]\n"
			files[path.Join(path.Dir(x.Student), "main.cu")] = "#include \"" + path.Base(x.Student) + "\"\n"
		}
		files[strings.TrimSuffix(x.Student, path.Ext(x.Student))+".toml"] = spec + "[[check]]\ncontains = \"done\"\n"
	}
	files["course.toml"] = toml.String()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	bin := filepath.Join(out, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(bin, "nvcc"), []byte(fakeNVCC), 0o755)
}

// fakeNVCC makes a shell script of a file's "// fake: " lines; a file
// saying "does not compile" does not.
const fakeNVCC = `#!/bin/sh
if [ "$1" = "--version" ]; then
  echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0
fi
out=""; src=""; shared=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    -shared) shared=1 ;;
    *.cu|*.h) src="$1" ;;
  esac
  shift
done
if [ -n "$shared" ]; then : > "$out"; exit 0; fi
if grep -qs 'does not compile' "$src" "$(dirname "$src")"/*.h; then echo "$src(2): error: this does not compile" >&2; exit 1; fi
cmds=$(sed -n 's|^// fake: ||p' "$src" $(ls "$(dirname "$src")"/*.h 2>/dev/null))
printf '#!/bin/sh\n%s\n' "$cmds" > "$out"
chmod +x "$out"
`

func printKinds(sum map[string]int) {
	kinds := make([]string, 0, len(sum))
	for k := range sum {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	groups := map[string]int{}
	for _, k := range kinds {
		g, _, _ := strings.Cut(k, "/")
		groups[g] += sum[k]
	}
	var parts []string
	for _, g := range []string{"correct", "right", "untouched", "missing", "compile_error", "wrong", "hostile"} {
		parts = append(parts, fmt.Sprintf("%s %d", g, groups[g]))
	}
	fmt.Printf("files: %s (%d kinds)\n", strings.Join(parts, ", "), len(kinds))
}

// check compares the gradebook with expected.tsv: every grade as made,
// none missing, and one attempt for each (none recorded twice).
func check(out, bookPath string) error {
	b, err := gradebook.OpenExisting(bookPath)
	if err != nil {
		return err
	}
	defer b.Close()
	grades, err := b.Grades()
	if err != nil {
		return err
	}
	attempts, err := b.Attempts()
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(out, "expected.tsv"))
	if err != nil {
		return err
	}
	defer f.Close()
	n, bad, lost := 0, 0, 0
	badKinds := map[string]int{}
	notes := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 4 {
			continue
		}
		n++
		a := grades[p[0]][p[1]]
		switch {
		case a == nil:
			lost++
			if lost <= 10 {
				fmt.Printf("LOST %s %s: no grade (made to be %s, %s)\n", p[0], p[1], p[2], p[3])
			}
		case a.Status != p[2]:
			bad++
			badKinds[p[3]]++
			if bad <= 40 {
				fmt.Printf("MISMATCH %s %s (%s): graded %s, made to be %s: %.200s\n", p[0], p[1], p[3], a.Status, p[2], a.Reason)
			}
		}
		if a != nil && a.Note != "" {
			notes++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	graded := 0
	for _, xs := range grades {
		graded += len(xs)
	}
	fmt.Printf("grades made: %d, graded: %d, as made: %d, mismatches: %d, lost: %d; attempts recorded: %d (%d more than grades: recorded twice); graded on a second run alone: %d\n",
		n, graded, n-bad-lost, bad, lost, attempts, attempts-graded, notes)
	if len(badKinds) > 0 {
		var ks []string
		for k, v := range badKinds {
			ks = append(ks, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(ks)
		fmt.Printf("mismatches by kind: %s\n", strings.Join(ks, ", "))
	}
	if bad > 0 || lost > 0 || attempts != graded || graded != n {
		return fmt.Errorf("%d of %d grades not as made (%d lost), %d recorded twice", bad+lost, n, lost, attempts-graded)
	}
	return nil
}

// strideFor is the stride of generate's walk through n choices: the
// first number from 101 on that shares no factor with n.
func strideFor(n int) int {
	gcd := func(a, b int) int {
		for b != 0 {
			a, b = b, a%b
		}
		return a
	}
	s := 101
	for gcd(s, n) != 1 {
		s++
	}
	return s
}
