package checker

import (
	"os"
	"strings"
	"testing"
)

// The logs were written by compute-sanitizer --tool memcheck --leak-check
// full on the H100 (record.sh), for the programs of TestRecordedRuns.
func TestParseSanitizerOnRecordedLogs(t *testing.T) {
	for name, want := range map[string]SanitizerReport{
		"cross_solution":    {Summary: true},
		"async_solution":    {Summary: true},
		"cross_stub":        {Summary: true, Errors: 130, LeakedBytes: 24, First: "Warp illegal address at sum(const float *, int, float *)+0x110"},
		"async_never_frees": {Summary: true, Errors: 12, LeakedBytes: 12 * 4194304, First: "Leaked 4,194,304 bytes at 0x"},
		// A crash is no error of memcheck's: the run's own checks fail it.
		"async_crash_after_alloc": {Summary: true, First: "Error: process didn't terminate successfully"},
	} {
		log, err := os.ReadFile("testdata/runs/" + name + ".memcheck")
		if err != nil {
			t.Fatal(err)
		}
		got := ParseSanitizer("memcheck", log)
		if got.Summary != want.Summary || got.LeakedBytes != want.LeakedBytes || !strings.HasPrefix(got.First, want.First) {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
		if want.Errors != 0 && got.Errors < want.Errors/2 || want.Errors == 0 && got.Errors != 0 {
			t.Errorf("%s: %d errors, want about %d", name, got.Errors, want.Errors)
		}
	}
}

func TestJudgeSanitizer(t *testing.T) {
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nsanitizer = \"memcheck\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rep           *SanitizerReport
		pass, skipped bool
		got           string
	}{
		{nil, true, true, "skipped: the run was not made under compute-sanitizer"},
		{&SanitizerReport{Skipped: "compute-sanitizer is not installed"}, true, true, "skipped: compute-sanitizer is not installed"},
		{&SanitizerReport{Summary: true}, true, false, "no errors"},
		{&SanitizerReport{Summary: true, Errors: 1, LeakedBytes: 1024, First: "Leaked 1024 bytes"}, false, false, "1 error (1024 bytes leaked); the first: Leaked 1024 bytes"},
		{&SanitizerReport{Ended: "timed out after 40s"}, false, false, "compute-sanitizer did not finish: timed out after 40s"},
	} {
		run := &Run{}
		if tc.rep != nil {
			run.Sanitizers = map[string]*SanitizerReport{"memcheck": tc.rep}
		}
		r := spec.Judge(run)[0]
		if r.Pass != tc.pass || r.Skipped != tc.skipped || r.Got != tc.got {
			t.Errorf("%+v: pass=%v skipped=%v got %q", tc.rep, r.Pass, r.Skipped, r.Got)
		}
	}
}

func TestSpecFilesAndSanitizerErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"files = [\"../x.cu\"]\n[[check]]\nexit = 0\n":            `s.toml:1: file "../x.cu" is not inside the exercise's folder`,
		"files = [\"/etc/passwd\"]\n[[check]]\nexit = 0\n":        `is not inside the exercise's folder`,
		"files = [\"a.h\", \"./a.h\"]\n[[check]]\nexit = 0\n":     `file "./a.h" is named twice`,
		"[[check]]\nsanitizer = \"valgrind\"\n":                   `s.toml:2: unknown sanitizer tool "valgrind"`,
		"[[check]]\nsanitizer = \"memcheck\"\nat_least = 1\n":     `has bounds on a sanitizer run`,
		"[[check]]\nsanitizer = \"memcheck\"\ncontains = \"x\"\n": `check 1 has 2 kinds`,
	} {
		_, err := ParseSpec("s.toml", []byte(spec))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", spec, err, want)
		}
	}
	s, err := ParseSpec("s.toml", []byte("files = [\"pool.h\", \"main.cu\", \"util/more.cpp\"]\n[[check]]\nsanitizer = \"racecheck\"\n[[check]]\nsanitizer = \"memcheck\"\n[[check]]\nsanitizer = \"racecheck\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Sources("pool.h"), " "); got != "main.cu util/more.cpp" {
		t.Errorf("Sources(pool.h) = %q", got)
	}
	if got := strings.Join(s.Sources("ex.cu"), " "); got != "ex.cu main.cu util/more.cpp" {
		t.Errorf("Sources(ex.cu) = %q", got)
	}
	if got := strings.Join(s.SanitizerTools(), " "); got != "racecheck memcheck" {
		t.Errorf("SanitizerTools = %q", got)
	}
}

// FuzzParseSanitizer: the log is written in the student's folder, so it
// is user input.
func FuzzParseSanitizer(f *testing.F) {
	for _, name := range []string{"cross_stub", "async_never_frees", "async_crash_after_alloc"} {
		if log, err := os.ReadFile("testdata/runs/" + name + ".memcheck"); err == nil {
			f.Add(log)
		}
	}
	f.Add([]byte("========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n"))
	f.Fuzz(func(t *testing.T, log []byte) {
		r := ParseSanitizer("memcheck", log)
		if r.Errors < 0 || len(r.First) > 310 {
			t.Fatalf("%+v", r)
		}
	})
}

// A tool that started on the program and ended by itself without a
// summary is skipped (it may not work here), but the grade is marked for
// review: a program can stop the tool it runs under, and the check was
// not made. A tool that is not there is skipped with no mark.
func TestSanitizerUnfinishedIsMarked(t *testing.T) {
	spec, err := ParseSpec("s.toml", []byte("[[check]]\nsanitizer = \"memcheck\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{Sanitizers: map[string]*SanitizerReport{"memcheck": {Skipped: "compute-sanitizer did not work here (exit status 1)", Unfinished: true}}}
	r := spec.Judge(run)[0]
	if !r.Pass || !r.Skipped || !strings.Contains(r.Review, "without a summary") {
		t.Errorf("an unfinished tool: %+v", r)
	}
	run = &Run{Sanitizers: map[string]*SanitizerReport{"memcheck": {Skipped: "compute-sanitizer is not installed"}}}
	if r := spec.Judge(run)[0]; r.Review != "" {
		t.Errorf("a tool that is not there is no finding: %+v", r)
	}
}
