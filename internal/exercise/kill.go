package exercise

import (
	"context"

	"github.com/cudalessons/lessons/checker"
)

// Kill judges a mutant as RunAll would, but stops at its first failed
// check, and does what costs most last: every run (public, then hidden)
// first without its sanitizer checks, and the sanitizers' runs only for
// a program that passed everything else. A mutant killed by its first
// run costs one run, whatever the spec asks for. The verdict has the
// results up to the one that failed (all of them for a survivor).
func Kill(ctx context.Context, tk *Toolkit, r Runner, j *Job, prog, device string, slot int) (*Verdict, error) {
	total := &Verdict{}
	before := map[string]*checker.Stats{}
	judgeRun := func(name string, spec *checker.Spec) (bool, error) {
		jj := *j
		jj.Spec, jj.Before = spec, before
		v, err := Run(ctx, tk, r, &jj, prog, device, slot)
		if err != nil {
			return false, err
		}
		if _, seen := before[name]; !seen {
			before[name] = v.stats
		}
		total.Took += v.Took
		if name == "" && total.Output == "" {
			total.Output = v.Output
		}
		for _, res := range v.Results {
			if name != "" {
				res.Name = "[" + name + "] " + res.Name
				if res.Check == nil {
					res.Check = &checker.Check{Name: res.Name, Hidden: true, Run: name}
				}
			}
			total.Results = append(total.Results, res)
		}
		return checker.Passed(v.Results) && v.stopped == "", nil
	}
	var sanitized []string
	for _, name := range j.Spec.Runs() {
		spec := j.Spec.ForRun(name)
		if len(spec.SanitizerTools()) > 0 {
			sanitized = append(sanitized, name)
		}
		ok, err := judgeRun(name, onlyChecks(spec, false))
		if err != nil || !ok {
			return total, err
		}
	}
	for _, name := range sanitized {
		ok, err := judgeRun(name, onlyChecks(j.Spec.ForRun(name), true))
		if err != nil || !ok {
			return total, err
		}
	}
	return total, nil
}

// onlyChecks is the spec with only its sanitizer checks (sanitizers) or
// only its other checks.
func onlyChecks(s *checker.Spec, sanitizers bool) *checker.Spec {
	c := *s
	c.Checks = nil
	for _, k := range s.Checks {
		if (k.Sanitizer != "") == sanitizers {
			c.Checks = append(c.Checks, k)
		}
	}
	return &c
}
