package main

import (
	"archive/zip"
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/cli"
	"github.com/cudalessons/lessons/internal/jupyter"
	"github.com/cudalessons/lessons/internal/nvccwrap"
	"github.com/cudalessons/lessons/internal/sandbox"
	"github.com/cudalessons/lessons/internal/timeline"
)

// waitfor FILE [TEXT] waits up to 60 s for FILE to exist (and hold TEXT):
// long enough for a loaded machine, so that only what never comes fails.
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfor FILE [TEXT]")
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		if err == nil && (len(args) == 1 || strings.Contains(string(data), args[1])) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear (with %q) within 60 s", args[0], strings.Join(args[1:], ""))
}

// zip OUT DIR writes the files under DIR into the zip OUT, named by
// their paths from DIR, as an LMS's download of a class is.
func zipCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: zip OUT DIR")
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	dir := ts.MkAbs(args[1])
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o644)
	}
	ts.Check(err)
}

// httpget URL REGEXP... fetches URL until its body matches every REGEXP,
// for up to 60 s (the server may still be starting, or rebuilding after
// a save, on a loaded machine). With !, the server must answer and the body match none.
func httpGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: httpget URL REGEXP...")
	}
	var res []*regexp.Regexp
	for _, a := range args[1:] {
		res = append(res, regexp.MustCompile(a))
	}
	client := &http.Client{Timeout: 30 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		r, err := client.Get(args[0])
		if err != nil {
			last = err.Error()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		last = fmt.Sprintf("%s\n%s", r.Status, body)
		matched := 0
		for _, re := range res {
			if re.Match(body) {
				matched++
			}
		}
		switch {
		case neg && matched == 0:
			return
		case neg:
			ts.Fatalf("%s matches what it must not:\n%s", args[0], last)
		case matched == len(res):
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("%s did not match %q within 60 s; last:\n%s", args[0], args[1:], last)
}

// httppost URL TOKEN JSON REGEXP... posts JSON as the served page does
// (TOKEN in X-Lessons-Token, "-" for none; the Origin of URL) and checks
// that the answer is 200 and its body matches every REGEXP. With !, the
// answer must be 403. The body is the command's stdout.
func httpPost(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: httppost URL TOKEN JSON REGEXP...")
	}
	req, err := http.NewRequest("POST", args[0], strings.NewReader(args[2]))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if args[1] != "-" {
		req.Header.Set("X-Lessons-Token", args[1])
	}
	if u := req.URL; u != nil {
		req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	}
	res, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	switch {
	case neg && res.StatusCode != http.StatusForbidden:
		ts.Fatalf("%s: %s, want 403 Forbidden\n%s", args[0], res.Status, body)
	case neg:
		return
	case res.StatusCode != 200:
		ts.Fatalf("%s: %s\n%s", args[0], res.Status, body)
	}
	for _, a := range args[3:] {
		if !regexp.MustCompile(a).Match(body) {
			ts.Fatalf("%s: the answer does not match %q:\n%s", args[0], a, body)
		}
	}
	ts.Stdout().Write(body) // for stdout and ! stdout after it
}

// freePort is a TCP port nothing listens on now, and none it gave
// before. It comes from below the ports the system hands out itself (to
// a listener on port 0 and to each connection: ip_local_port_range). A
// script binds its port seconds after this, and a port of that range
// let go meanwhile was free for every other test's servers and
// connections: on a busy machine one took it, and lessons serve could
// not listen.
func freePort() (string, error) {
	low := 32768
	if data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		fmt.Sscan(string(data), &low)
	}
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		if low <= firstPort {
			break
		}
		p := firstPort + rand.IntN(low-firstPort)
		if portsGiven[p] {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		ln.Close()
		portsGiven[p] = true
		return strconv.Itoa(p), nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}

// firstPort is the lowest port freePort gives: above the well-known
// servers' ports.
const firstPort = 20000

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

func fakeStats() {
	s := &checker.Stats{}
	for _, arg := range os.Args[1:] {
		name, value, _ := strings.Cut(arg, "=")
		v, err := strconv.ParseUint(value, 10, 64)
		if err == nil && name == "pool_used_high" {
			s.PoolCount, s.Pools[0].UsedHigh = 1, v
			continue
		}
		if err == nil {
			err = s.Set(name, v)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakestats:", err)
			os.Exit(2)
		}
	}
	// The library's frames: its start, then its end with the figures.
	key, err := hex.DecodeString(os.Getenv("LESSONS_STATS_KEY"))
	if err != nil || len(key) != checker.KeySize || os.Getenv("LESSONS_STATS_FD") != "3" {
		fmt.Fprintln(os.Stderr, "fakestats: no statistics channel in the environment")
		os.Exit(2)
	}
	start, _ := checker.EncodeFrame(key, 0, checker.FrameStart, &checker.Stats{}, &checker.Guard{})
	frames := start
	seq := uint64(1)
	// Asked for a trace (lessons check --timeline), it sends one as the
	// library does: a race between two streams.
	if os.Getenv("LESSONS_STATS_TRACE") == "1" {
		tf, err := checker.EncodeTraceFrame(key, seq, timeline.Encode(fakeRace), &checker.Guard{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakestats:", err)
			os.Exit(2)
		}
		frames = append(frames, tf...)
		seq++
	}
	end, err := checker.EncodeFrame(key, seq, checker.FrameEnd, s, &checker.Guard{})
	if err == nil {
		_, err = os.NewFile(3, "stats").Write(append(frames, end...))
	}
	if err == nil {
		// A mark that the run happened, for scripts that wait for one.
		err = os.WriteFile("fakestats.done", nil, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakestats:", err)
		os.Exit(2)
	}
}

// fakeRace is a trace of a kernel on stream 2 reading a buffer stream 1
// allocated, without an event between them.
var fakeRace = []timeline.Event{
	{T: 1000, Kind: timeline.KindAlloc, Stream: 1, A: 0x1000, B: 4 << 20, C: 1},
	timeline.Name(0, "produce"),
	{T: 2000, Kind: timeline.KindLaunch, Stream: 1, A: 0},
	timeline.Name(1, "consume"),
	{T: 3000, Kind: timeline.KindLaunch, Stream: 2, A: 1},
	{T: 3000, Kind: timeline.KindFinding, Flags: timeline.FindUse, Stream: -1, A: 5, B: 1, C: 4 << 20},
	{T: 4000, Kind: timeline.KindFree, Stream: 1, A: 0x1000, B: 4 << 20, C: 1},
	{T: 5000, Kind: timeline.KindHostWait, Flags: timeline.WaitDevice, Stream: -1, A: 900000},
}

func TestMain(m *testing.M) {
	sandbox.Helper()
	testscript.Main(suite{m}, map[string]func(){
		"lessons": func() { os.Exit(cli.Main()) },
		"nvcc":    func() { os.Exit(nvccwrap.Main(os.Args[1:])) },
		// fakestats NAME=VALUE... sends a statistics record over the
		// run's channel (descriptor 3), as the preloaded library would.
		"fakestats": fakeStats,
	})
}

// suite is this package's tests: they run the real command end to end,
// each script and dialect its own programs and Jupyter kernels, and on a
// loaded machine of two cores take longer than go test's default limit
// of 10 minutes, which is there to catch a hang. Here every wait has a
// deadline of its own, so with go test's default (and only then) the
// whole may take 30.
type suite struct{ m *testing.M }

func (s suite) Run() int {
	flag.Parse()
	if t := flag.Lookup("test.timeout"); t != nil && t.Value.String() == (10*time.Minute).String() {
		t.Value.Set((30 * time.Minute).String())
	}
	return s.m.Run()
}

// TestScript runs testdata/script/*.txtar against the real command. $COURSE
// is this repository's course and $SEEDS the seed documents; scripts that
// need the seeds start with [!seeds] skip.
func TestScript(t *testing.T) {
	root, _ := filepath.Abs("../..")
	seeds := filepath.Join(root, "..", "shared", "seeds")
	_, err := os.Stat(filepath.Join(seeds, "002_742c26890dfac7c0.txt"))
	haveSeeds := err == nil
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("COURSE", root)
			env.Setenv("SEEDS", seeds)
			env.Setenv("NO_COLOR", "")
			// Where testscript put the lessons command: a PATH with only
			// this folder has no nvcc.
			env.Setenv("BINDIR", filepath.SplitList(env.Getenv("PATH"))[0])
			env.Setenv("LESSONS_CACHE", filepath.Join(env.WorkDir, "cache"))
			port, err := freePort()
			if err != nil {
				return err
			}
			env.Setenv("PORT", port)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfor":    waitFor,
			"httpget":    httpGet,
			"httppost":   httpPost,
			"zip":        zipCmd,
			"nbrun":      nbRun,
			"classtoken": classToken,
			"classapi":   classAPI,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "seeds" {
				return haveSeeds, nil
			}
			if cond == "nvcc" { // a real nvcc, not this program's wrapper
				_, err := gpu.Find("nvcc", "")
				return err == nil, nil
			}
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			if cond == "kernel" {
				_, err := jupyter.FindSpec("python3")
				return err == nil, nil
			}
			return false, nil
		},
	})
}
