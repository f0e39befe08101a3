package exercise

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/sandbox"
)

// TestMain lets this test binary stand in for the statistics library in a
// program built by the fake nvcc: `"$LESSONS_TEST_BIN" fakelib STEP...`.
func TestMain(m *testing.M) {
	sandbox.Helper()
	if len(os.Args) > 1 && os.Args[1] == "fakelib" {
		os.Exit(fakeLib(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// fakeLib writes frames to descriptor $LESSONS_STATS_FD as the library
// does, one per step: start, snap (malloc_calls one more each time), end;
// and what a forger might: replay (the last frame again), skip (a
// sequence number left out), badkey (a frame under another key),
// garbage, and many (a thousand snapshots, more than a pipe holds).
func fakeLib(steps []string) int {
	key, err := hex.DecodeString(os.Getenv("LESSONS_STATS_KEY"))
	fd, _ := strconv.Atoi(os.Getenv("LESSONS_STATS_FD"))
	if err != nil || len(key) != checker.KeySize || fd != 3 {
		fmt.Fprintln(os.Stderr, "fakelib: no channel in the environment")
		return 3
	}
	out := os.NewFile(uintptr(fd), "stats")
	var seq uint64
	var last []byte
	s := &checker.Stats{}
	send := func(k []byte, kind int) {
		f, err := checker.EncodeFrame(k, seq, kind, s, &checker.Guard{RuntimeCopies: 1, DriverCopies: 1, Namespaces: 1})
		if err != nil {
			panic(err)
		}
		out.Write(f)
		last = f
		seq++
	}
	for _, step := range steps {
		switch step {
		case "start":
			send(key, checker.FrameStart)
		case "snap":
			s.MallocCalls++
			send(key, checker.FrameSnapshot)
		case "many":
			for i := 0; i < 1000; i++ {
				s.MallocCalls++
				send(key, checker.FrameSnapshot)
			}
		case "pool":
			// A forger that found the key: a 16 MiB pool and four
			// launches it never made (driver_test.go).
			*s = *forgedStats()
			send(key, checker.FrameSnapshot)
		case "end":
			s.Exited = 1
			send(key, checker.FrameEnd)
		case "replay":
			out.Write(last)
		case "skip":
			seq++
		case "badkey":
			send(make([]byte, checker.KeySize), checker.FrameSnapshot)
		case "garbage":
			out.WriteString("ERROR SUMMARY: 0 errors\n")
		case "twocopies":
			f, _ := checker.EncodeFrame(key, seq, checker.FrameEnd, s, &checker.Guard{RuntimeCopies: 2, DriverCopies: 1, Namespaces: 2})
			out.Write(f)
			seq++
		case "kill":
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		default:
			// spanMS: the kernels took MS milliseconds from first to last.
			if ms, ok := strings.CutPrefix(step, "span"); ok {
				n, _ := strconv.Atoi(ms)
				s.KernelSpanNs = uint64(n) * 1_000_000
			}
		}
	}
	return 0
}

// The channel end to end with a stand-in for the library: what the
// program's frames make of its verdict.
func TestStatsChannel(t *testing.T) {
	tk := toolkit(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LESSONS_TEST_BIN", self)
	s := spec(t, "[[check]]\nexit = 0\n[[check]]\nstat = \"malloc_calls\"\nat_least = 1\n")
	for _, tc := range []struct {
		name, steps string
		pass        bool
		want        string // in a failed result's Got
	}{
		{"honest", "start snap end", true, ""},
		{"more than a pipe holds", "start many end", true, ""},
		{"_exit before the end", "start snap", false, "cut short: the program left without exiting normally"},
		{"garbage", "start snap garbage end", false, "a frame the library did not write"},
		{"another key", "start badkey end", false, "not signed with this run's key"},
		{"replayed", "start snap replay end", false, "out of sequence"},
		{"a frame left out", "start snap skip end", false, "out of sequence"},
		{"bytes after the end", "start snap end replay", false, "bytes after the library's end-of-run frame"},
		{"a private runtime", "start snap twocopies", false, "2 copies of the CUDA runtime"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Check(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: \"$LESSONS_TEST_BIN\" fakelib "+tc.steps+"\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if v.Passed() != tc.pass {
				t.Fatalf("passed = %v, want %v: %+v (output %q)", v.Passed(), tc.pass, v.Results, v.Output)
			}
			if tc.want == "" {
				return
			}
			found := false
			for _, r := range v.Results {
				if !r.Pass && strings.Contains(r.Got, tc.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("no failed check says %q: %+v", tc.want, v.Results)
			}
		})
	}
}

// A program that crashed fails "ends by itself"; its record, cut short,
// keeps the last snapshot and is not a second failure.
func TestStatsChannelCrash(t *testing.T) {
	tk := toolkit(t)
	self, _ := os.Executable()
	t.Setenv("LESSONS_TEST_BIN", self)
	s := spec(t, "[[check]]\nstat = \"malloc_calls\"\nat_least = 1\n")
	v, err := Check(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: exec \"$LESSONS_TEST_BIN\" fakelib start snap kill\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Results) != 2 || v.Results[0].Name != "ends by itself" || !v.Results[1].Pass {
		t.Errorf("results: %+v", v.Results)
	}
}

// Nothing on the channel: the library did not load (the fake toolchain's
// is empty). Not an attack the program can make (the library writes its
// start before main), so no record is all it means.
func TestStatsChannelNoLibrary(t *testing.T) {
	tk := toolkit(t)
	s := spec(t, "[[check]]\nexit = 0\n")
	v, err := Check(context.Background(), tk, Plain{}, job(t, s, "x.cu", "// fake: test \"$LESSONS_STATS_FD\" = 3 && test ${#LESSONS_STATS_KEY} = 64\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Passed() {
		t.Errorf("the program was not given the channel, or an empty one failed: %+v", v.Results)
	}
}

// TestForkedWork: a run whose forked children called CUDA is not trusted
// where the exercise's checks read the program's own process alone
// (fork_work.cu of the corpus), and is judged as before where a check
// reads the children's statistics (an exercise about several processes)
// or where no child called CUDA.
func TestForkedWork(t *testing.T) {
	own := spec(t, "[[check]]\nstat = \"malloc_calls\"\nequals = 1\n")
	kids := spec(t, "[[check]]\nstat = \"malloc_calls\"\nequals = 1\n[[check]]\nstat = \"all.malloc_calls\"\nat_most = 2\n")
	forked := &checker.Received{Stats: &checker.Stats{MallocCalls: 1}, Children: &checker.Stats{MallocCalls: 100}, ChildGuards: []checker.Guard{{Pid: 9}}}
	alone := &checker.Received{Stats: &checker.Stats{MallocCalls: 1}}
	if why := forkedWork(own, forked); !strings.Contains(why, "forked called CUDA") {
		t.Errorf("a child's work under checks of the program's own process: %q", why)
	}
	if why := forkedWork(kids, forked); why != "" {
		t.Errorf("an exercise that reads its children's statistics: %q", why)
	}
	if why := forkedWork(own, alone); why != "" {
		t.Errorf("no child called CUDA: %q", why)
	}
	if why := forkedWork(own, nil); why != "" {
		t.Errorf("no record: %q", why)
	}
}
