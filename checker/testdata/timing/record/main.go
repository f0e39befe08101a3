// Command record runs a program under the statistics library, as the
// pipeline does (a pipe and a key of its own), and writes the verified
// record and a line of every statistic:
//
//	go build -o rec ./checker/testdata/timing/record
//	rec LIB OUT.bin PROG [ARGS...]
//
// record.sh beside it uses it to record the timing fixtures on a GPU, and
// ../record5/probe.cu is the probe of record version 5. The records of
// the children the program forked follow on a line of their own.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cudalessons/lessons/checker"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: record LIB OUT.bin PROG [ARGS...]")
		os.Exit(2)
	}
	lib, out, prog := os.Args[1], os.Args[2], os.Args[3]
	key := make([]byte, checker.KeySize)
	if _, err := rand.Read(key); err != nil {
		fail(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		fail(err)
	}
	cmd := exec.Command(prog, os.Args[4:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib, "LESSONS_STATS_FD=3", "LESSONS_STATS_KEY="+hex.EncodeToString(key))
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	w.Close()
	data, _ := io.ReadAll(r)
	runErr := cmd.Wait()
	took := time.Since(t0)
	c := checker.NewChannel(key)
	c.Write(data)
	got, err := c.Close()
	if err != nil || got == nil || got.Stats == nil {
		fail(fmt.Errorf("the record did not verify: %v", err))
	}
	if err := os.WriteFile(out, got.Stats.Encode(), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("%s (exit %v, %.3f s):%s\n", out, runErr, took.Seconds(), line(got.Stats))
	if got.Children != nil {
		fmt.Printf("%s, %d child processes:%s\n", out, len(got.ChildGuards), line(got.Children))
	}
}

// line is every statistic of s that is not 0, as name=value.
func line(s *checker.Stats) string {
	var b strings.Builder
	for _, n := range checker.StatNames() {
		if v, _ := s.Value(n); v != 0 {
			fmt.Fprintf(&b, " %s=%g", n, v)
		}
	}
	return b.String()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "record:", err)
	os.Exit(1)
}
