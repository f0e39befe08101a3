package exercise

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/runner"
)

// sanitizerPrinted, when set (by a test), is given what each run under a
// tool printed: the program's own words among the tool's.
var sanitizerPrinted func(tool string, printed []byte)

// sanitize runs the program under each compute-sanitizer tool the spec
// asks for, in p, and reads each tool's log. main is how the plain run
// ended: a run that did not end by itself is not run again. stalled says
// why a tool's run was stopped at its time limit while waiting in the
// GPU's driver ("" when none was).
func sanitize(ctx context.Context, tk *Toolkit, p *runPlace, spec *checker.Spec, main *runner.Result) (out map[string]*checker.SanitizerReport, stalled string) {
	tools := spec.SanitizerTools()
	if len(tools) == 0 {
		return nil, ""
	}
	out = map[string]*checker.SanitizerReport{}
	cs := tk.Sanitizer
	for _, tool := range tools {
		rep := &checker.SanitizerReport{Tool: tool}
		out[tool] = rep
		switch {
		case cs == "":
			rep.Skipped = "compute-sanitizer is not installed (it comes with the CUDA toolkit)"
			continue
		case p.unable != "":
			rep.Skipped = p.unable
			continue
		case ended(main):
			rep.Skipped = "the program did not end by itself"
			continue
		}
		logDir := p.dir
		if p.logs != "" {
			logDir = p.logs
		}
		logFile := filepath.Join(logDir, "sanitizer-"+tool+".log")
		os.Remove(logFile)
		argv := []string{cs, "--tool", tool, "--log-file", logFile, "--print-limit", "20"}
		if tool == "memcheck" {
			// Stream-ordered races too: a use of a cudaMallocAsync
			// allocation before its allocation or after its free in
			// stream order, whatever the timing (the tool's own view,
			// beside the record's).
			argv = append(argv, "--leak-check", "full", "--track-stream-ordered-races", "all")
		}
		if p.target != nil {
			// The target is the helper, which becomes the program by an
			// exec: the tool follows it there only with "all" (measured on
			// the H100: with application-only it found no CUDA call).
			argv = append(argv, "--target-processes", "all")
		}
		argv = append(append(append(append(argv, p.target...), p.interp...), p.prog), spec.Args...)
		// A sanitizer slows the program down several times.
		limit := 4 * spec.TimeLimit()
		var printed bytes.Buffer
		res, err := p.sanitizer.Run(ctx, runner.Spec{Argv: argv, Dir: p.dir, Env: p.env, Timeout: limit, MaxOutput: maxOutput}, &printed)
		if err != nil {
			rep.Skipped = "compute-sanitizer could not start: " + err.Error()
			continue
		}
		if sanitizerPrinted != nil {
			sanitizerPrinted(tool, printed.Bytes())
		}
		log, err := readRunFile(logFile)
		if err != nil {
			// No log: what it printed (its own errors start "=========").
			log = printed.Bytes()
		}
		*rep = *checker.ParseSanitizer(tool, log)
		if err != nil && p.logs != "" {
			// The program printed some of that: none of it is the tool's
			// verdict.
			rep.Summary, rep.Errors, rep.LeakedBytes = false, 0, 0
		}
		switch {
		case ended(res):
			rep.Ended = res.Reason(limit, maxOutput)
			if res.TimedOut && res.InDriver && stalled == "" {
				stalled = "under compute-sanitizer's " + tool + ", " + rep.Ended
			}
		case !rep.Summary:
			// It ended by itself without a summary: the tool, not the
			// program, failed ("Unable to find injection library").
			rep.Skipped, rep.Unfinished = "compute-sanitizer did not work here", true
			if rep.First != "" {
				rep.Skipped += ": " + strings.TrimPrefix(rep.First, "Error: ")
			} else {
				rep.Skipped += " (" + res.Reason(limit, maxOutput) + ")"
			}
		}
	}
	return out, stalled
}
