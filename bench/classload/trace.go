package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/tracer"
)

// span is a run of the server's trace ($LESSONS_TRACE, written by
// internal/classroom/cells through internal/tracer): its phases, in Unix
// ms.
type span struct {
	Kind                 string
	Student              string
	Slot                 int
	BuildStart, BuildEnd float64
	Queued, Granted      float64
	Spawned              float64
	NvccStart, NvccEnd   float64
	NvccHit              bool
	FirstOut, Exited     float64
	Done                 float64
}

// readTrace reads the trace's spans, their times made Unix times in ms
// (a trace cut short by a server killed, or several appended by servers
// one after the other, included).
func readTrace(file string) ([]span, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	es, err := tracer.Read(f)
	if err != nil {
		return nil, err
	}
	var out []span
	for _, e := range tracer.Spans(es) {
		base := float64(e.Start.UnixMicro()) / 1000
		at := func(phase string) float64 {
			if f, ok := e.Args[phase].(float64); ok && f != 0 {
				return f + base
			}
			return 0
		}
		slot, _ := e.Args["slot"].(float64)
		student, _ := e.Args["student"].(string)
		hit, _ := e.Args["nvccHit"].(bool)
		out = append(out, span{Kind: e.Cat, Student: student, Slot: int(slot),
			BuildStart: at("buildStart"), BuildEnd: at("buildEnd"), Queued: at("queued"), Granted: at("granted"),
			Spawned: at("spawned"), NvccStart: at("nvccStart"), NvccEnd: at("nvccEnd"), NvccHit: hit,
			FirstOut: at("firstOut"), Exited: at("exited"), Done: at("done")})
	}
	return out, nil
}

type phaseStat struct {
	name string
	ds   []time.Duration
}

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// reportTrace prints where a slot's time went for the spans granted
// between from and to (Unix ms), and how full the slots were.
func reportTrace(w io.Writer, spans []span, from, to float64, slots int) {
	window := (to - from) / 1000
	kinds := map[string]int{}
	var busy float64
	phases := map[string]*phaseStat{}
	var order []string
	add := func(kind, name string, a, b float64) {
		if a == 0 || b == 0 || b < a {
			return
		}
		k := kind + ": " + name
		if phases[k] == nil {
			phases[k] = &phaseStat{name: k}
			order = append(order, k)
		}
		phases[k].ds = append(phases[k].ds, ms(b-a))
	}
	for _, s := range spans {
		if s.Granted < from || s.Granted >= to {
			continue
		}
		kinds[s.Kind]++
		busy += min(s.Done, to) - s.Granted
		add(s.Kind, "build (outside the queue)", s.BuildStart, s.BuildEnd)
		add(s.Kind, "queue wait", s.Queued, s.Granted)
		add(s.Kind, "slot held", s.Granted, s.Done)
		add(s.Kind, "granted to process started", s.Granted, s.Spawned)
		if s.Kind == "cell" {
			add(s.Kind, "process started to nvcc wrapper", s.Spawned, s.NvccStart)
			add(s.Kind, "nvcc wrapper (cache hit)", s.NvccStart, hitEnd(s))
			add(s.Kind, "nvcc wrapper (miss: nvcc)", s.NvccStart, missEnd(s))
			add(s.Kind, "nvcc end to first output", s.NvccEnd, s.FirstOut)
			add(s.Kind, "first output to runner's return", s.FirstOut, s.Exited)
		} else {
			add(s.Kind, "the run (grade's pipeline)", s.Spawned, s.Exited)
		}
		add(s.Kind, "runner's return to slot back", s.Exited, s.Done)
	}
	var names []string
	for k := range kinds {
		names = append(names, fmt.Sprintf("%d %ss", kinds[k], k))
	}
	sort.Strings(names)
	n := 0
	for _, c := range kinds {
		n += c
	}
	fmt.Fprintf(w, "server's trace, slots granted in the %.1f s window: %s = %d slot runs, %.2f a second; slots busy %.0f%% (%d slots)\n",
		window, strings.Join(names, ", "), n, float64(n)/window, 100*busy/1000/window/float64(max(slots, 1)), slots)
	fmt.Fprintf(w, "  %-58s %8s %8s %8s %6s\n", "phase", "median", "p95", "mean", "n")
	for _, k := range order {
		ds := phases[k].ds
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		msf := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/1e6) }
		fmt.Fprintf(w, "  %-58s %8s %8s %8s %6d\n", k, msf(quantile(ds, 0.5)), msf(quantile(ds, 0.95)), msf(sum/time.Duration(len(ds))), len(ds))
	}
}

func hitEnd(s span) float64 {
	if s.NvccHit {
		return s.NvccEnd
	}
	return 0
}

func missEnd(s span) float64 {
	if !s.NvccHit {
		return s.NvccEnd
	}
	return 0
}

// countGPUProcesses counts the processes the driver listed on the GPU
// (lines "UNIX_NS PID" of a sampler of nvidia-smi --query-compute-apps)
// that it first listed between from and to (Unix ms), and the samples.
func countGPUProcesses(file string, from, to float64) (n, samples int, err error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	first := map[string]float64{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(strings.ReplaceAll(sc.Text(), ",", " "))
		if len(w) < 2 {
			continue
		}
		if !seen[w[0]] {
			seen[w[0]] = true
			samples++
		}
		if w[1] == "-" { // a sample's end
			continue
		}
		t, err := strconv.ParseFloat(w[0], 64)
		if err != nil {
			continue
		}
		if w[1] == "-" {
			continue
		}
		t /= 1e6 // ns to ms
		if _, ok := first[w[1]]; !ok {
			first[w[1]] = t
		}
	}
	for _, t := range first {
		if t >= from && t < to {
			n++
		}
	}
	return n, samples, sc.Err()
}
