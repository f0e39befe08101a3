package checker

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The run's channel is a pair of connected sockets: neither end can be
// opened again through /proc/self/fd (a pipe's could, for reading, by a
// program of the pipe's user: pipe_steal.cu of the corpus), the
// program's end reads nothing (the grader sends nothing), and frames
// written at the program's end reach the record whole.
func TestPipeIsASocketPair(t *testing.T) {
	p, err := OpenPipe()
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*os.File{"the program's end": p.W, "the grader's end": p.r} {
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
			t.Errorf("%s: mode %o, %v; want a socket", name, st.Mode, err)
		}
		again, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), os.O_RDONLY, 0)
		if err == nil {
			again.Close()
			t.Errorf("%s opened again through /proc/self/fd for reading", name)
		} else if !errors.Is(err, unix.ENXIO) {
			t.Errorf("%s opened again through /proc/self/fd: %v, want ENXIO", name, err)
		}
	}
	// What the program's end reads: the end of what the grader sends.
	buf := make([]byte, 16)
	if n, err := unix.Read(int(p.W.Fd()), buf); n != 0 || err != nil {
		t.Errorf("the program's end read %d bytes, %v; want 0 (the grader sends nothing)", n, err)
	}
	for _, f := range frames(t, p.key, 3, true) {
		if _, err := p.W.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	got, err := p.Finish(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got.Frames != 5 || got.Stats == nil || got.Stats.MallocCalls != 3 || got.Stats.Exited != 1 {
		t.Errorf("received %+v", got)
	}
}
