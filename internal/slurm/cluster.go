// Package slurm is Slurm as lessons sees it: its commands (sbatch,
// squeue, sacct, scontrol, scancel) behind one seam, Exec, so that
// everything above is tested without a cluster, the options of a grade's
// tasks, and their job scripts. What is submitted, and why, is
// internal/grade/cluster's.
package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"github.com/cudalessons/lessons/internal/runner"
)

// Exec runs one of Slurm's commands and returns what it printed; tests
// give a fake one.
type Exec func(ctx context.Context, name string, args ...string) ([]byte, error)

// Command runs the real command on PATH. A failure's error carries what
// the command printed on stderr.
func Command(ctx context.Context, name string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	// sbatch hands its environment to the job (--export=ALL): the job's
	// is built for it, never all of the submitter's (a class server's
	// LMS token).
	cmd.Env = runner.HostEnv(nil)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(string(out))
		}
		if errors.Is(err, exec.ErrNotFound) {
			return out, fmt.Errorf("%s is not on PATH: run this on a Slurm login node", name)
		}
		return out, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, msg)
	}
	return out, nil
}

// Cluster is Slurm as the grader uses it.
type Cluster struct{ Exec Exec }

// Submit submits a batch script and returns its job's id.
func (c Cluster) Submit(ctx context.Context, script string, args ...string) (string, error) {
	out, err := c.Exec(ctx, "sbatch", append(append([]string{"--parsable"}, args...), script)...)
	if err != nil {
		return "", fmt.Errorf("submit %s: %w", script, err)
	}
	// --parsable prints "ID" or "ID;CLUSTER".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("submit %s: sbatch printed %q, not a job id", script, strings.TrimSpace(string(out)))
	}
	return id, nil
}

// Cancel cancels jobs (every task of an array).
func (c Cluster) Cancel(ctx context.Context, jobs ...string) error {
	if len(jobs) == 0 {
		return nil
	}
	if _, err := c.Exec(ctx, "scancel", jobs...); err != nil {
		return fmt.Errorf("cancel jobs %s: %w", strings.Join(jobs, ","), err)
	}
	return nil
}

// Task is one task of a job array as Slurm last saw it.
type Task struct {
	Job    string // the array's job id
	Index  int    // SLURM_ARRAY_TASK_ID
	State  string // PENDING, RUNNING, COMPLETED, CANCELLED, TIMEOUT, ...
	Reason string // why it waits, or how it ended
}

// ID is JOB_INDEX, as squeue and scancel write a task.
func (t Task) ID() string { return fmt.Sprintf("%s_%d", t.Job, t.Index) }

// Ended is whether the task is over, one way or another.
func (t Task) Ended() bool {
	switch t.State {
	case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
		"RESIZING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT", "RESV_DEL_HOLD":
		return false
	}
	return true
}

// Tasks are the tasks of jobs: those the controller still holds from
// squeue, the others from the accounting (sacct), or, on a cluster
// without it, from scontrol while the controller remembers them. A task
// that none knows is missing from the answer.
func (c Cluster) Tasks(ctx context.Context, jobs ...string) ([]Task, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	out, err := c.Exec(ctx, "squeue", "-h", "-r", "-t", "all", "-j", strings.Join(jobs, ","), "-o", "%i|%T|%r")
	if err != nil {
		// squeue fails on ids it no longer knows ("Invalid job id"):
		// the accounting knows them. Any other failure (the controller
		// does not answer) says nothing about the tasks: taking them for
		// ended would submit their items twice.
		if !forgotten(err) {
			return nil, fmt.Errorf("ask Slurm about jobs %s: %w", strings.Join(jobs, ","), err)
		}
		out = nil
	}
	tasks := parseQueue(out)
	known := map[string]bool{}
	for _, t := range tasks {
		known[t.Job] = true
	}
	var rest []string
	for _, j := range jobs {
		if !known[j] {
			rest = append(rest, j)
		}
	}
	if len(rest) > 0 {
		acct, err := c.accounting(ctx, rest)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, acct...)
	}
	sort.Slice(tasks, func(i, j int) bool {
		if tasks[i].Job != tasks[j].Job {
			return tasks[i].Job < tasks[j].Job
		}
		return tasks[i].Index < tasks[j].Index
	})
	return tasks, nil
}

func (c Cluster) accounting(ctx context.Context, jobs []string) ([]Task, error) {
	out, err := c.Exec(ctx, "sacct", "-n", "-P", "-X", "-j", strings.Join(jobs, ","), "-o", "JobID,State,Reason")
	if err == nil {
		return parseAcct(out), nil
	}
	if !strings.Contains(err.Error(), "accounting storage is disabled") {
		return nil, fmt.Errorf("ask how jobs %s ended: %w", strings.Join(jobs, ","), err)
	}
	var tasks []Task
	for _, j := range jobs {
		out, err := c.Exec(ctx, "scontrol", "-o", "show", "job", j)
		if err != nil {
			if forgotten(err) {
				continue // its tasks count as ended, with nothing to say
			}
			return nil, fmt.Errorf("ask Slurm how job %s ended: %w", j, err)
		}
		tasks = append(tasks, parseScontrol(out)...)
	}
	return tasks, nil
}

// parseQueue reads squeue -o '%i|%T|%r' lines: "12_3|RUNNING|None".
func parseQueue(out []byte) []Task {
	var tasks []Task
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) < 3 {
			continue
		}
		job, idx, ok := splitTaskID(f[0])
		if !ok {
			continue
		}
		t := Task{Job: job, Index: idx, State: f[1]}
		if f[2] != "None" {
			t.Reason = f[2]
		}
		tasks = append(tasks, t)
	}
	return tasks
}

// parseAcct reads sacct -P -o JobID,State,Reason lines: "12_3|CANCELLED by 0|None".
func parseAcct(out []byte) []Task {
	var tasks []Task
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) < 2 {
			continue
		}
		job, idx, ok := splitTaskID(f[0])
		if !ok {
			continue
		}
		state, by, _ := strings.Cut(f[1], " ")
		t := Task{Job: job, Index: idx, State: state}
		if len(f) > 2 && f[2] != "None" {
			t.Reason = f[2]
		}
		if by != "" {
			t.Reason = strings.TrimSpace(t.Reason + " " + by)
		}
		tasks = append(tasks, t)
	}
	return tasks
}

// parseScontrol reads scontrol -o show job lines: key=value words.
func parseScontrol(out []byte) []Task {
	var tasks []Task
	for _, line := range strings.Split(string(out), "\n") {
		kv := map[string]string{}
		for _, w := range strings.Fields(line) {
			k, v, ok := strings.Cut(w, "=")
			if ok {
				kv[k] = v
			}
		}
		idx, err := strconv.Atoi(kv["ArrayTaskId"])
		if kv["ArrayJobId"] == "" || err != nil {
			continue
		}
		t := Task{Job: kv["ArrayJobId"], Index: idx, State: kv["JobState"]}
		if r := kv["Reason"]; r != "None" {
			t.Reason = r
		}
		tasks = append(tasks, t)
	}
	return tasks
}

// splitTaskID splits "12_3" into 12 and 3. A pending range ("12_[3-9]")
// is not one task.
func splitTaskID(s string) (string, int, bool) {
	job, idx, ok := strings.Cut(s, "_")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.Atoi(idx)
	if _, jerr := strconv.Atoi(job); err != nil || jerr != nil {
		return "", 0, false
	}
	return job, n, true
}

// forgotten is whether Slurm's answer is that it knows no such job.
func forgotten(err error) bool { return strings.Contains(err.Error(), "Invalid job id") }
