// Command tlrec runs a program under the statistics library with its trace
// off and on, alternately, and says what tracing cost; it writes the last
// traced run's trace and draws it:
//
//	go build -ldflags="-s -w" -o tlrec ./internal/timeline/testdata/tlrec
//	tlrec -n 5 -o OUT.trace [-base BASELIB] LIB PROG [ARGS...]
//
// ../gpu/record.sh runs it on the GPU machine for each solution of the
// course (the cost of tracing, and of the trace's code when off).
package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"time"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/timeline"
)

func main() {
	n := flag.Int("n", 3, "runs of each kind")
	out := flag.String("o", "", "write the trace here")
	width := flag.Int("w", 80, "draw at this width (0: do not draw)")
	base := flag.String("base", "", "also run under this library (one without the trace: what it cost when off)")
	flag.Parse()
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: tlrec [-n N] [-o OUT.trace] LIB PROG [ARGS...]")
		os.Exit(2)
	}
	lib, prog, args := flag.Arg(0), flag.Arg(1), flag.Args()[2:]
	var off, on, before []time.Duration
	var trace []byte
	for i := 0; i < *n; i++ {
		d, _, err := run(lib, prog, args, false)
		if err != nil {
			fail(err)
		}
		off = append(off, d)
		d, tr, err := run(lib, prog, args, true)
		if err != nil {
			fail(err)
		}
		on = append(on, d)
		trace = tr
		if *base != "" {
			d, _, err := run(*base, prog, args, false)
			if err != nil && d > 0 {
				err = nil // another version's record: only its time counts here
			}
			if err != nil {
				fail(err)
			}
			before = append(before, d)
		}
	}
	mo, mn := median(off), median(on)
	fmt.Printf("%s: off %.1f ms, on %.1f ms (medians of %d), %+.1f%%, %d trace bytes", prog, ms(mo), ms(mn), *n, 100*(float64(mn)/float64(mo)-1), len(trace))
	if *base != "" {
		mb := median(before)
		fmt.Printf("; without the trace's code %.1f ms (off %+.1f%%)", ms(mb), 100*(float64(mo)/float64(mb)-1))
	}
	if tl, err := timeline.Parse(trace); err == nil {
		fmt.Printf("; %d events: %d launches timed on the GPU, %d pool samples, %d left out", len(tl.Events), len(tl.Ran), len(tl.Pools), tl.Cut)
	}
	fmt.Println()
	if *out != "" {
		if err := os.WriteFile(*out, trace, 0o644); err != nil {
			fail(err)
		}
	}
	if *width > 0 {
		tl, err := timeline.Parse(trace)
		if err != nil {
			fail(err)
		}
		fmt.Print(timeline.Text(tl, timeline.TextOptions{Width: *width}))
	}
}

func run(lib, prog string, args []string, trace bool) (time.Duration, []byte, error) {
	key := make([]byte, checker.KeySize)
	rand.Read(key)
	r, w, err := os.Pipe()
	if err != nil {
		return 0, nil, err
	}
	cmd := exec.Command(prog, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "LESSONS_STATS_FD=3", "LESSONS_STATS_KEY="+hex.EncodeToString(key))
	if trace {
		cmd.Env = append(cmd.Env, "LESSONS_STATS_TRACE=1")
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	w.Close()
	data, _ := io.ReadAll(r)
	cmd.Wait()
	took := time.Since(t0)
	c := checker.NewChannel(key)
	c.Write(data)
	got, err := c.Close()
	if err != nil || got == nil {
		return took, nil, fmt.Errorf("%s: the record did not verify: %v", prog, err)
	}
	return took, got.Trace, nil
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tlrec:", err)
	os.Exit(1)
}
