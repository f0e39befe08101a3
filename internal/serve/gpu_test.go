package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These drive a real lessons serve through the page's protocol, on a
// machine with a GPU: LESSONS_PAGE_BIN is the lessons program and
// LESSONS_PAGE_COURSE the course (a copy: checks save progress). Without
// them they are skipped. LESSONS_PAGE_LESSON (default 70) is the lesson
// run, LESSONS_PAGE_CELL (default 2) the cell timed, LESSONS_PAGE_EXERCISE
// (default async-pipeline) the exercise checked, none for none.

type liveServer struct {
	bin, course, url, token string
}

func pageEnv(tb testing.TB, name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func startLive(tb testing.TB) *liveServer {
	tb.Helper()
	bin, course := os.Getenv("LESSONS_PAGE_BIN"), os.Getenv("LESSONS_PAGE_COURSE")
	if bin == "" || course == "" {
		tb.Skip("LESSONS_PAGE_BIN and LESSONS_PAGE_COURSE name a lessons program and a course to serve")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &liveServer{bin: bin, course: course, url: "http://" + addr, token: "page-test-token"}
	cmd := exec.Command(bin, "serve", "--addr", addr)
	cmd.Dir = course
	cmd.Env = append(os.Environ(), "LESSONS_SERVE_TOKEN="+s.token)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		tb.Logf("lessons serve said:\n%s", log.String())
	})
	// Until it answers: a server that never does, not a slow start.
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(s.url + "/"); err == nil {
			res.Body.Close()
			return s
		}
	}
	tb.Fatalf("lessons serve did not answer within 60 s: %s", log.String())
	return nil
}

func (s *liveServer) post(tb testing.TB, op string, body map[string]any) *http.Response {
	tb.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.url+apiPrefix+op, bytes.NewReader(data))
	req.Header.Set(TokenHeader, s.token)
	req.Header.Set("Origin", s.url)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		tb.Fatalf("%s: %s %s", op, res.Status, b)
	}
	return res
}

// page is the lesson's page: lessons/day069-stream-ordered.md is
// day069-stream-ordered.
func (s *liveServer) page(tb testing.TB) string {
	tb.Helper()
	day, _ := strconv.Atoi(pageEnv(tb, "LESSONS_PAGE_LESSON", "69"))
	files, _ := filepath.Glob(filepath.Join(s.course, "lessons", fmt.Sprintf("day%03d-*", day)))
	if len(files) == 0 {
		tb.Fatalf("no lesson for day %d in %s/lessons", day, s.course)
	}
	name := filepath.Base(files[0])
	return strings.TrimSuffix(name, filepath.Ext(name))
}

// TestPageOnGPU runs every cell of the lesson from the page's protocol
// and checks an exercise from it, comparing with lessons check.
func TestPageOnGPU(t *testing.T) {
	s := startLive(t)
	page := s.page(t)
	req, _ := http.NewRequest("GET", s.url+apiPrefix+"cells?page="+page, nil)
	req.Header.Set(TokenHeader, s.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var cells []cellState
	json.NewDecoder(res.Body).Decode(&cells)
	res.Body.Close()
	if len(cells) == 0 {
		t.Fatalf("%s has no cells to run", page)
	}
	for _, c := range cells {
		evs, out := events(t, s.post(t, "run", map[string]any{"page": page, "session": "gpu", "cell": c.Cell}))
		end := last(evs)
		fmt.Printf("cell [%d] %-8s %6d ms  builds %d, from the cache %d  %s\n", c.Cell, end.Status, end.MS, end.Builds, end.Hits, end.Reason)
		if end.Status != "ok" {
			t.Errorf("cell [%d]: %+v\n%s", c.Cell, end, out)
		}
		if out != "" {
			fmt.Printf("%s\n", strings.TrimRight(out, "\n"))
		}
	}

	id := pageEnv(t, "LESSONS_PAGE_EXERCISE", "async-pipeline")
	if id == "none" {
		return // a course of lessons alone
	}
	var v Verdict
	res = s.post(t, "check", map[string]any{"exercise": id})
	json.NewDecoder(res.Body).Decode(&v)
	res.Body.Close()
	cmd := exec.Command(s.bin, "check", id)
	cmd.Dir = s.course
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cli, err := cmd.Output()
	cliPassed := err == nil
	fmt.Printf("check %s from the page: passed=%v, %d of %d points\n", id, v.Passed, v.Score, v.Points)
	var pageLines, cliLines []string
	for _, r := range v.Checks {
		mark := "✗"
		switch {
		case r.Skipped:
			mark = "–"
		case r.Pass:
			mark = "✓"
		}
		pageLines = append(pageLines, mark+" "+r.Name)
		fmt.Printf("  page %s %s\n", mark, r.Name)
	}
	sc := bufio.NewScanner(bytes.NewReader(cli))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "✓ ") || strings.HasPrefix(line, "✗ ") || strings.HasPrefix(line, "– ") {
			name := line
			if i := strings.LastIndex(name, " ("); i > 0 && strings.HasSuffix(name, ")") && strings.Contains(name[i:], "point") {
				name = name[:i]
			}
			if strings.HasPrefix(line, "– ") {
				name = name[:strings.LastIndex(name, " (")]
			}
			cliLines = append(cliLines, name)
		}
	}
	fmt.Printf("lessons check %s: passed=%v\n%s", id, cliPassed, cli)
	if v.Error != "" || v.Passed != cliPassed || !slices.Equal(pageLines, cliLines) {
		t.Errorf("the page's verdict differs from lessons check's:\npage %v %q %v\ncli  %v %v", v.Passed, v.Error, pageLines, cliPassed, cliLines)
	}
}

// BenchmarkFirstOutput times Run to the first line a cell prints: from
// the page (the request sent, until the line arrives) and from lessons
// run --cell N (the command started, until the line after the cell's
// label). The cache is warm for both; it reports the median.
func BenchmarkFirstOutput(b *testing.B) {
	s := startLive(b)
	page := s.page(b)
	cell, _ := strconv.Atoi(pageEnv(b, "LESSONS_PAGE_CELL", "2"))
	fromPage := func() time.Duration {
		start := time.Now()
		res := s.post(b, "run", map[string]any{"page": page, "session": "bench", "cell": cell})
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		text := ""
		for sc.Scan() {
			var e event
			json.Unmarshal(sc.Bytes(), &e)
			text += e.Text
			if strings.Contains(text, "\n") {
				d := time.Since(start)
				io.Copy(io.Discard, res.Body)
				return d
			}
			if e.Event == "end" {
				b.Fatalf("cell [%d] ended with no output: %+v", cell, e)
			}
		}
		b.Fatal("the stream ended early")
		return 0
	}
	fromRun := func() time.Duration {
		start := time.Now()
		cmd := exec.Command(s.bin, "run", pageEnv(b, "LESSONS_PAGE_LESSON", "69"), "--cell", strconv.Itoa(cell))
		cmd.Dir = s.course
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer cmd.Wait()
		sc := bufio.NewScanner(out)
		label := fmt.Sprintf("[%d] ", cell)
		seen := false
		for sc.Scan() {
			if seen {
				d := time.Since(start)
				io.Copy(io.Discard, out)
				return d
			}
			seen = strings.HasPrefix(sc.Text(), label)
		}
		b.Fatal("lessons run printed nothing after the cell's label")
		return 0
	}
	fromPage() // warm the cache and the workspace
	fromRun()
	for _, m := range []struct {
		name string
		f    func() time.Duration
	}{{"page", fromPage}, {"run", fromRun}} {
		b.Run(m.name, func(b *testing.B) {
			var ds []time.Duration
			for b.Loop() {
				ds = append(ds, m.f())
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "ms-median")
			fmt.Printf("%s: first line after %v (median of %d; min %v, max %v)\n", m.name, ds[len(ds)/2], len(ds), ds[0], ds[len(ds)-1])
		})
	}
}
