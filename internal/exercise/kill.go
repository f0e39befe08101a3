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
	return until(ctx, tk, r, j, prog, device, slot, true, func(res checker.Result) bool { return !res.Pass })
}

// Until is a judge that runs as Kill does (each run without its
// sanitizer checks first, the sanitizers' runs last) but stops only once
// a failed check that done accepts is among the results: a wrong answer
// stops at the first failure that holds its expected text, and one that
// never shows it is run through every run and sanitizer, as RunAll runs
// it, so that its verdict holds every failure. A run stopped at its
// limit on the public run fails the others unrun, as RunAll fails them.
func Until(done func(checker.Result) bool) func(ctx context.Context, tk *Toolkit, r Runner, j *Job, prog, device string, slot int) (*Verdict, error) {
	return func(ctx context.Context, tk *Toolkit, r Runner, j *Job, prog, device string, slot int) (*Verdict, error) {
		return until(ctx, tk, r, j, prog, device, slot, false, func(res checker.Result) bool { return !res.Pass && done(res) })
	}
}

// until is Kill and Until: it stops after the run whose results hold one
// that stop accepts, or (atLimit) after one stopped at its limit.
func until(ctx context.Context, tk *Toolkit, r Runner, j *Job, prog, device string, slot int, atLimit bool, stop func(checker.Result) bool) (*Verdict, error) {
	total := &Verdict{}
	before := map[string]*checker.Stats{}
	stopped := ""
	add := func(name string, results []checker.Result) bool {
		hit := false
		for _, res := range results {
			if name != "" {
				res.Name = "[" + name + "] " + res.Name
				if res.Check == nil {
					res.Check = checker.RunCheck(res.Name, name)
				}
			}
			total.Results = append(total.Results, res)
			hit = hit || stop(res)
		}
		return hit
	}
	judgeRun := func(name string, spec *checker.Spec) (bool, error) {
		if stopped != "" {
			// As RunAll: a program stopped at its limit on the public
			// run is not run again; the other runs' checks fail unrun.
			res := spec.Judge(&checker.Run{Ended: stopped})
			for i := range res {
				res[i].Pass = false
				res[i].Got = "not run: on the public run the program " + stopped
			}
			hit := add(name, res)
			if hit {
				total.Killed, total.KilledOn = true, name
			}
			return hit, nil
		}
		jj := *j
		jj.Spec, jj.Before = spec, before
		v, err := Run(ctx, tk, r, &jj, prog, device, slot)
		if err != nil {
			return true, err
		}
		if _, seen := before[name]; !seen {
			before[name] = v.stats
		}
		total.Took += v.Took
		total.Started += v.Started
		if total.Stalled == "" && v.Stalled != "" {
			// As RunAll: a run stopped while it waited in the driver is
			// perhaps the machine's hang; the scheduler runs it again alone.
			total.Stalled = v.Stalled
			if name != "" {
				total.Stalled = "on the run " + name + ", " + v.Stalled
			}
		}
		if name == "" && total.Output == "" {
			total.Output = v.Output
		}
		if name == "" {
			stopped = v.stopped
		}
		hit := add(name, v.Results) || (v.stopped != "" && atLimit)
		if hit {
			total.Killed, total.KilledOn = true, name
		}
		return hit, nil
	}
	var sanitized []string
	for _, name := range runOrder(j) {
		spec := j.Spec.ForRun(name)
		if len(spec.SanitizerTools()) > 0 {
			sanitized = append(sanitized, name)
		}
		done, err := judgeRun(name, onlyChecks(spec, false))
		if err != nil || done {
			return total, err
		}
	}
	for _, name := range sanitized {
		done, err := judgeRun(name, onlyChecks(j.Spec.ForRun(name), true))
		if err != nil || done {
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

// runOrder is the order of j's runs: j.RunOrder where it names each run
// of the spec once, else the spec's. A run whose checks compare it with
// a baseline run (relative_to) is made after that baseline: where
// j.RunOrder puts it before, it waits for the baseline, and the runs
// after it keep their order.
func runOrder(j *Job) []string {
	runs := j.Spec.Runs()
	if len(j.RunOrder) != len(runs) {
		return runs
	}
	left := map[string]bool{}
	for _, r := range runs {
		left[r] = true
	}
	for _, r := range j.RunOrder {
		if !left[r] {
			return runs
		}
		delete(left, r)
	}
	after := map[string][]string{} // run: the baselines it waits for
	for _, c := range j.Spec.Checks {
		if c.RelativeTo != "" {
			after[c.Run] = append(after[c.Run], c.RelativeTo)
		}
	}
	out := make([]string, 0, len(runs))
	made := map[string]bool{}
	for len(out) < len(runs) {
		progress := false
		for _, r := range j.RunOrder {
			ready := !made[r]
			for _, b := range after[r] {
				ready = ready && made[b]
			}
			if ready {
				out, made[r], progress = append(out, r), true, true
				break
			}
		}
		if !progress {
			return runs // a baseline that never runs: the spec's order
		}
	}
	return out
}
