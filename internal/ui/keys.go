package ui

import (
	"bufio"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ReadKeys delivers the key presses read from in: single keys from a
// terminal (in cbreak mode: no echo, no line buffering, Ctrl-C still a
// signal), otherwise the first letter of each line. The channel closes at
// the end of input; restore gives the terminal its mode back.
func ReadKeys(in io.Reader) (keys <-chan byte, restore func()) {
	ch := make(chan byte)
	if f, ok := in.(*os.File); ok {
		if restore, ok := cbreak(f); ok {
			go func() {
				defer close(ch)
				b := make([]byte, 1)
				for {
					if n, err := f.Read(b); err != nil || n == 0 {
						return
					}
					ch <- b[0]
				}
			}()
			return ch, restore
		}
	}
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				ch <- line[0]
			}
		}
	}()
	return ch, func() {}
}

// cbreak puts the terminal f in cbreak mode; ok is false when f is not
// a terminal.
func cbreak(f *os.File) (restore func(), ok bool) {
	old, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	if err != nil {
		return nil, false
	}
	raw := *old
	raw.Lflag &^= unix.ICANON | unix.ECHO
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if unix.IoctlSetTermios(int(f.Fd()), unix.TCSETS, &raw) != nil {
		return nil, false
	}
	return func() { _ = unix.IoctlSetTermios(int(f.Fd()), unix.TCSETS, old) }, true
}
