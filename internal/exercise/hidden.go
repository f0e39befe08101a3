package exercise

import (
	"context"

	"github.com/cudalessons/lessons/checker"
)

// RunAll runs a built program once for each run of its spec, the public
// run and then each hidden run with its own arguments and environment,
// and judges each by its checks: what grade and verify do (check and
// watch run only spec.Public()). The verdict has the public run's output
// and every run's results; a hidden run's are named after the run and
// are all hidden, its failure to end by itself included.
func RunAll(ctx context.Context, tk *Toolkit, r Runner, j *Job, prog, device string, slot int) (*Verdict, error) {
	before := map[string]*checker.Stats{}
	one := func(spec *checker.Spec) (*Verdict, error) {
		jj := *j
		jj.Spec, jj.Before = spec, before
		return Run(ctx, tk, r, &jj, prog, device, slot)
	}
	v, err := one(j.Spec.ForRun(""))
	if err != nil {
		return nil, err
	}
	before[""] = v.stats
	v.Outputs = map[string]string{"": v.Output}
	for _, h := range j.Spec.HiddenRuns {
		var hv *Verdict
		if v.stopped != "" {
			// A program stopped at its limit on the public run scores
			// nothing whatever its hidden runs do: they are not run
			// (a class's endless loops would otherwise cost their time
			// limit once more for each hidden run), and their checks fail.
			hv = &Verdict{Results: j.Spec.ForRun(h.Name).Judge(&checker.Run{Ended: v.stopped})}
			for i := range hv.Results {
				hv.Results[i].Pass = false
				hv.Results[i].Got = "not run: on the public run the program " + v.stopped
			}
		} else {
			var err error
			hv, err = one(j.Spec.ForRun(h.Name))
			if err != nil {
				return nil, err
			}
			before[h.Name] = hv.stats
			v.Outputs[h.Name] = hv.Output
			if v.Unwitnessed == "" && hv.Unwitnessed != "" {
				v.Unwitnessed = "on the run " + h.Name + ", " + hv.Unwitnessed
			}
			if v.Stalled == "" && hv.Stalled != "" {
				v.Stalled = "on the run " + h.Name + ", " + hv.Stalled
			}
		}
		for _, res := range hv.Results {
			res.Name = "[" + h.Name + "] " + res.Name
			if res.Check == nil {
				res.Check = checker.RunCheck(res.Name, h.Name)
			}
			v.Results = append(v.Results, res)
		}
		v.Took += hv.Took
		v.Started += hv.Started
	}
	return v, nil
}
