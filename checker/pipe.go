package checker

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Pipe is the channel a run's statistics record comes over (a pair of
// connected sockets, a pipe before) and the key its
// frames are signed with: made for one run, so that a record of another
// run, or of the program's own making, does not verify. It is drained into
// a Channel as the program writes (a full pipe would block the program).
// A graded run (internal/exercise) and a traced lesson cell
// (internal/notebook) each open one.
type Pipe struct {
	// W is the program's end: the first of its ExtraFiles, descriptor 3.
	W    *os.File
	key  []byte
	r    *os.File
	ch   *Channel
	done chan struct{}
}

// OpenPipe makes a run's pipe and its fresh key.
func OpenPipe() (*Pipe, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	// A pair of connected sockets, not a pipe: a pipe's end opened again
	// through /proc/PID/fd is the pipe itself, so a program of the pipe's
	// user could open it for reading and take frames out before the
	// grader read them (pipe_steal.cu of the corpus dropped a forked
	// child's every frame so, and the grader saw no child); a socket's
	// magic link opens nothing (ENXIO), and the program's end of the pair
	// reads only what the grader sends, which is nothing.
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	// The grader's end is read through Go's poller (Finish's deadline).
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, err
	}
	r := os.NewFile(uintptr(fds[0]), "statistics record")
	w := os.NewFile(uintptr(fds[1]), "statistics record, the program's end")
	// The program's end only writes: what it could read is what the
	// grader sends, and the grader sends nothing.
	unix.Shutdown(fds[0], unix.SHUT_WR)
	p := &Pipe{W: w, key: key, r: r, ch: NewChannel(key), done: make(chan struct{})}
	go func() {
		io.Copy(p.ch, r)
		close(p.done)
	}()
	return p, nil
}

// Env is what the statistics library is told: its descriptor (W, the
// first of the run's ExtraFiles) and the key.
func (p *Pipe) Env() []string {
	return []string{"LESSONS_STATS_FD=3", "LESSONS_STATS_KEY=" + hex.EncodeToString(p.key)}
}

// Finish reads the record to its end once the program has ended: the
// frames are in the pipe already, and only a process the program left
// behind (in a session of its own) holds it open longer than grace.
func (p *Pipe) Finish(grace time.Duration) (*Received, error) {
	p.W.Close()
	p.r.SetReadDeadline(time.Now().Add(grace))
	<-p.done
	p.r.Close()
	return p.ch.Close()
}
