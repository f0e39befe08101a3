// Command classload is a load test of the class server (lessons serve
// --class): it signs N students in with the links lessons invite wrote,
// and each runs a cell, checks and submits an exercise with think times
// between, for a while; then it prints the wait from Run to the first
// line of the program's output (median, 95th percentile, the longest,
// the longest of each student against the mean), the runs a second, and
// every error. With -record it saves the exercise's file with a numbered
// marker every few runs and writes down each save and submission the
// server acknowledged; -verify then checks a class folder against that
// record, after the server was killed with kill -9 in the middle and
// restarted (bench/classload/gpu.sh, KILL=1).
//
//	lessons invite --class DIR --roster roster.csv --url http://127.0.0.1:3000 > links.csv
//	classload -url http://127.0.0.1:3000 -links links.csv -students 8 -duration 60s -record acked.jsonl
//	classload -verify -record acked.jsonl -class DIR
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

type options struct {
	base, links, page, exercise string
	students, cell              int
	duration, think             time.Duration
	checkEvery, submitEvery     int
	lone                        int
	trace, gpuPIDs              string
	slots                       int
	floor                       float64
	saveEvery                   int
	record, class               string
	verify                      bool
}

type sample struct {
	student    string
	wait, took time.Duration
	status     string
}

type result struct {
	mu        sync.Mutex
	runs      []sample
	checks    []time.Duration
	submits   []time.Duration
	errors    []string
	lone      []time.Duration
	firstRuns int
}

func (r *result) errorf(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errors) < 50 {
		r.errors = append(r.errors, fmt.Sprintf(format, a...))
	}
}

func main() {
	var o options
	flag.StringVar(&o.base, "url", "http://127.0.0.1:3000", "the class server")
	flag.StringVar(&o.links, "links", "links.csv", "the sign-in links, as lessons invite writes them")
	flag.StringVar(&o.page, "page", "day068-memory-pools", "the lesson whose cell each student runs")
	flag.IntVar(&o.cell, "cell", 2, "the cell each student runs")
	flag.StringVar(&o.exercise, "exercise", "block-pool", "the exercise each student checks and submits")
	flag.IntVar(&o.students, "students", 8, "students at once")
	flag.DurationVar(&o.duration, "duration", time.Minute, "how long the load lasts")
	flag.DurationVar(&o.think, "think", 2*time.Second, "the mean think time between a student's actions")
	flag.IntVar(&o.checkEvery, "check-every", 4, "a check every this many runs (0: none)")
	flag.IntVar(&o.submitEvery, "submit-every", 8, "a submission every this many runs (0: none)")
	flag.IntVar(&o.saveEvery, "save-every", 2, "with -record, a save of the exercise's file every this many runs")
	flag.IntVar(&o.lone, "lone", 5, "runs of one student on the idle server first, for the lone run's wait")
	flag.StringVar(&o.trace, "trace", "", "the server's trace ($LESSONS_TRACE) to sum up for the load's window")
	flag.StringVar(&o.gpuPIDs, "gpu-pids", "", "a file of lines \"UNIX_NS PID\" sampled from nvidia-smi --query-compute-apps during the load: the CUDA processes started are counted from it")
	flag.IntVar(&o.slots, "slots", 16, "the server's run slots, for how busy the trace says they were")
	flag.Float64Var(&o.floor, "floor", 10, "CUDA process starts a second the GPU can make (../shared/GPU.md)")
	flag.StringVar(&o.record, "record", "", "write each save and submission the server acknowledged to this `FILE` (JSON lines), for -verify")
	flag.BoolVar(&o.verify, "verify", false, "check the class folder (-class) against -record: nothing acknowledged lost")
	flag.StringVar(&o.class, "class", "", "the class's `DIR` (serve --class's), for -verify")
	flag.Parse()
	if o.verify {
		if err := verify(os.Stdout, o.record, o.class); err != nil {
			fmt.Fprintln(os.Stderr, "classload:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "classload:", err)
		os.Exit(1)
	}
}

func readLinks(file string, n int) ([]string, []string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	var ids, links []string
	for _, r := range recs[1:] {
		if len(r) == 4 && len(ids) < n {
			ids, links = append(ids, r[0]), append(links, r[3])
		}
	}
	if len(ids) < n {
		return nil, nil, fmt.Errorf("%s has %d links, fewer than -students %d", file, len(ids), n)
	}
	return ids, links, nil
}

// student is one simulated student's browser.
type student struct {
	id, base string
	cookie   *http.Cookie
	client   *http.Client
	// file and text are the exercise's copy as the first read gave
	// them, and saves how many times it was saved since.
	file, text string
	saves      int
}

func signin(base, id, link string) (*student, error) {
	u, err := url.Parse(link)
	if err != nil {
		return nil, err
	}
	s := &student{id: id, base: base, client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	req, _ := http.NewRequest("POST", base+"/_class/signin", strings.NewReader(url.Values{"link": {u.Query().Get("link")}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == "lessons_class" {
			s.cookie = c
		}
	}
	if s.cookie == nil {
		return nil, fmt.Errorf("sign-in of %s: %s (was the link used already? run lessons invite again)", id, res.Status)
	}
	return s, nil
}

func (s *student) post(ctx context.Context, path string, v any) (*http.Response, error) {
	data, _ := json.Marshal(v)
	req, _ := http.NewRequestWithContext(ctx, "POST", s.base+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", s.base)
	req.AddCookie(s.cookie)
	return s.client.Do(req)
}

// runCell runs the cell and returns the wait from the request to the
// program's first line (the queue's own line left out) and the run's end.
func (s *student) runCell(ctx context.Context, o options) (sample, error) {
	start := time.Now()
	res, err := s.post(ctx, "/_lessons/api/run", map[string]any{"page": o.page, "session": s.id, "cell": o.cell})
	if err != nil {
		return sample{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		return sample{}, fmt.Errorf("run: %s %s", res.Status, strings.TrimSpace(string(b)))
	}
	smp := sample{student: s.id}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct{ Event, Text, Status, Reason string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Event == "output" && smp.wait == 0 && !strings.HasPrefix(ev.Text, "(queue:") {
			smp.wait = time.Since(start)
		}
		if ev.Event == "end" {
			smp.took = time.Since(start)
			smp.status = ev.Status
			if ev.Status != "ok" {
				return smp, fmt.Errorf("run ended %s: %s", ev.Status, ev.Reason)
			}
		}
	}
	if smp.wait == 0 {
		smp.wait = time.Since(start)
	}
	if err := sc.Err(); err != nil {
		return smp, err
	}
	if smp.status == "" {
		return smp, errors.New("run: the stream ended before the run did (the server stopped?)")
	}
	return smp, nil
}

func (s *student) timed(ctx context.Context, path string, body map[string]any) (time.Duration, []byte, error) {
	start := time.Now()
	res, err := s.post(ctx, path, body)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return 0, nil, fmt.Errorf("%s: %s %s", path, res.Status, strings.TrimSpace(string(b)))
	}
	return time.Since(start), b, nil
}

// readFile reads the student's copy of the exercise, the text each save
// adds its marker to.
func (s *student) readFile(ctx context.Context, o options) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/_class/api/file?exercise="+url.QueryEscape(o.exercise), nil)
	req.AddCookie(s.cookie)
	res, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var f struct{ Name, Text, Error string }
	if err := json.NewDecoder(res.Body).Decode(&f); err != nil || res.StatusCode != 200 {
		return fmt.Errorf("read %s: %s %v %s", o.exercise, res.Status, err, f.Error)
	}
	s.file, s.text = f.Name, f.Text
	return nil
}

// save saves the copy with the next marker: recorded as sent before, and
// as saved once the server answers.
func (s *student) save(ctx context.Context, o options, rec *recorder) error {
	s.saves++
	rec.add(entry{Student: s.id, Kind: "sent", Exercise: o.exercise, File: s.file, N: s.saves})
	if _, _, err := s.timed(ctx, "/_class/api/file", map[string]any{"exercise": o.exercise, "text": s.text + marker(s.id, s.saves)}); err != nil {
		return err
	}
	rec.add(entry{Student: s.id, Kind: "saved", Exercise: o.exercise, N: s.saves})
	return nil
}

func run(o options) error {
	ids, links, err := readLinks(o.links, o.students)
	if err != nil {
		return err
	}
	var students []*student
	for i := range ids {
		s, err := signin(o.base, ids[i], links[i])
		if err != nil {
			return err
		}
		students = append(students, s)
	}
	r := &result{}
	ctx := context.Background()
	rec, err := openRecorder(o.record)
	if err != nil {
		return err
	}
	defer rec.close()
	if rec != nil {
		for _, s := range students {
			if err := s.readFile(ctx, o); err != nil {
				return fmt.Errorf("%s: %w", s.id, err)
			}
		}
	}
	// Each student's first run builds their cell (the cache is their
	// own): left out of the figures, and the lone runs after it.
	var wg sync.WaitGroup
	firstFrom := time.Now()
	for _, s := range students {
		wg.Add(1)
		go func(s *student) {
			defer wg.Done()
			if _, err := s.runCell(ctx, o); err != nil {
				r.errorf("%s first run: %v", s.id, err)
			}
		}(s)
	}
	wg.Wait()
	loneFrom := time.Now()
	for range o.lone {
		smp, err := students[0].runCell(ctx, o)
		if err != nil {
			r.errorf("lone run: %v", err)
			continue
		}
		r.lone = append(r.lone, smp.wait)
	}
	deadline := time.Now().Add(o.duration)
	start := time.Now()
	for k, s := range students {
		wg.Add(1)
		go func(s *student, seed int64) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed))
			for i := 1; time.Now().Before(deadline); i++ {
				time.Sleep(time.Duration(rnd.ExpFloat64() * float64(o.think)))
				smp, err := s.runCell(ctx, o)
				if err != nil {
					r.errorf("%s run %d: %v", s.id, i, err)
				} else {
					r.mu.Lock()
					r.runs = append(r.runs, smp)
					r.mu.Unlock()
				}
				if rec != nil && o.saveEvery > 0 && i%o.saveEvery == 0 {
					if err := s.save(ctx, o, rec); err != nil {
						r.errorf("%s save: %v", s.id, err)
					}
				}
				if o.checkEvery > 0 && i%o.checkEvery == 0 {
					if d, _, err := s.timed(ctx, "/_lessons/api/check", map[string]any{"exercise": o.exercise}); err != nil {
						r.errorf("%s check: %v", s.id, err)
					} else {
						r.mu.Lock()
						r.checks = append(r.checks, d)
						r.mu.Unlock()
					}
				}
				if o.submitEvery > 0 && i%o.submitEvery == 0 {
					if d, body, err := s.timed(ctx, "/_class/api/submit", map[string]any{"exercise": o.exercise}); err != nil {
						r.errorf("%s submit: %v", s.id, err)
					} else {
						var res struct{ Attempt int64 }
						json.Unmarshal(body, &res)
						rec.add(entry{Student: s.id, Kind: "submitted", Exercise: o.exercise, Attempt: res.Attempt})
						r.mu.Lock()
						r.submits = append(r.submits, d)
						r.mu.Unlock()
					}
				}
			}
		}(s, int64(k))
	}
	wg.Wait()
	// The window's end: when the last student's last action ended (the
	// load's deadline is when they stop starting new ones).
	end := time.Now()
	report(os.Stdout, o, r, end.Sub(start))
	from, to := float64(start.UnixMilli()), float64(end.UnixMilli())
	if o.gpuPIDs != "" {
		n, samples, err := countGPUProcesses(o.gpuPIDs, from, to)
		if err != nil {
			fmt.Fprintln(os.Stderr, "classload:", err)
		} else {
			secs := end.Sub(start).Seconds()
			fmt.Printf("CUDA processes started (the driver's list, %d samples): %d in %.1f s = %.2f a second, %.2f of the floor of %.0f a second\n",
				samples, n, secs, float64(n)/secs, float64(n)/secs/o.floor, o.floor)
		}
	}
	if o.trace != "" {
		spans, err := readTrace(o.trace)
		if err != nil {
			fmt.Fprintln(os.Stderr, "classload:", err)
		} else {
			reportTrace(os.Stdout, spans, from, to, o.slots)
			// The lone runs, on the idle server.
			var lone []span
			for _, s := range spans {
				if s.Kind == "cell" && s.Granted >= float64(loneFrom.UnixMilli()) && s.Granted < from {
					lone = append(lone, s)
				}
			}
			fmt.Printf("each student's first run (the cell's build) took %.1f s for the class:\n", loneFrom.Sub(firstFrom).Seconds())
			reportTrace(os.Stdout, spans, float64(firstFrom.UnixMilli()), float64(loneFrom.UnixMilli()), o.slots)
			if len(lone) > 0 {
				fmt.Println("the lone runs:")
				reportTrace(os.Stdout, lone, float64(loneFrom.UnixMilli()), from, o.slots)
			}
		}
	}
	if len(r.errors) > 0 {
		return fmt.Errorf("%d errors", len(r.errors))
	}
	return nil
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func report(w io.Writer, o options, r *result, took time.Duration) {
	var waits []time.Duration
	var sum time.Duration
	worst := map[string]time.Duration{}
	for _, s := range r.runs {
		waits = append(waits, s.wait)
		sum += s.wait
		worst[s.student] = max(worst[s.student], s.wait)
	}
	mean := time.Duration(0)
	if len(waits) > 0 {
		mean = sum / time.Duration(len(waits))
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/1e6) }
	fmt.Fprintf(w, "classload: %d students, %s, think %s (mean), cell %d of %s, check every %d, submit every %d\n", o.students, o.duration, o.think, o.cell, o.page, o.checkEvery, o.submitEvery)
	fmt.Fprintf(w, "lone run on the idle server, Run to first line: median %s, p95 %s (%d runs)\n", ms(quantile(r.lone, 0.5)), ms(quantile(r.lone, 0.95)), len(r.lone))
	fmt.Fprintf(w, "runs: %d in %.1f s = %.2f a second\n", len(r.runs), took.Seconds(), float64(len(r.runs))/took.Seconds())
	fmt.Fprintf(w, "Run to first line: median %s, p95 %s, mean %s, longest %s (%.1f× the mean)\n", ms(quantile(waits, 0.5)), ms(quantile(waits, 0.95)), ms(mean), ms(quantile(waits, 1)), float64(quantile(waits, 1))/max(float64(mean), 1))
	fmt.Fprintf(w, "checks: %d, median %s, p95 %s; submissions: %d, median %s, p95 %s\n", len(r.checks), ms(quantile(r.checks, 0.5)), ms(quantile(r.checks, 0.95)), len(r.submits), ms(quantile(r.submits, 0.5)), ms(quantile(r.submits, 0.95)))
	ids := make([]string, 0, len(worst))
	for id := range worst {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var per []string
	for _, id := range ids {
		per = append(per, fmt.Sprintf("%s %s", id, ms(worst[id])))
	}
	fmt.Fprintf(w, "each student's longest wait: %s\n", strings.Join(per, ", "))
	fmt.Fprintf(w, "errors: %d\n", len(r.errors))
	for _, e := range r.errors {
		fmt.Fprintf(w, "  %s\n", e)
	}
}
