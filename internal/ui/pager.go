package ui

import (
	"io"
	"os"
	"os/exec"
	"strings"
)

// Page runs pager (a shell command line, which may carry flags) with text
// on its input and out as its output, as git does: LESS=FRX unless $LESS
// is set, so that less quits at once when the text fits and keeps colors.
// It reports false when the pager could not be run (it did not start, or
// the shell could not find it), so that the caller writes the text itself;
// a reader who quits the pager early is not an error.
func Page(pager, text string, out io.Writer) bool {
	cmd := exec.Command("sh", "-c", pager)
	cmd.Stdin, cmd.Stdout = strings.NewReader(text), out
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(os.Environ(), "LESS=FRX")
	}
	if err := cmd.Start(); err != nil {
		return false
	}
	if err := cmd.Wait(); err != nil && cmd.ProcessState.ExitCode() == 127 {
		return false
	}
	return true
}
