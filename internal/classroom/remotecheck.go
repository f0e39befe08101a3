package classroom

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/classroom/access"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/serve"
	"github.com/cudalessons/lessons/internal/study"
	"github.com/cudalessons/lessons/internal/ui"
)

// remoteCheck is lessons check --remote on the server: text saved as the
// student's copy of exercise id (as lessons submit saves it), then judged
// as the page's Check judges it: the class's queue and sandbox, the hidden
// checks left out and counted. Nothing goes into the gradebook; the
// queue's limits (runs queued, GPU time an hour) are the student's, as
// for Run, and a refused check costs no build.
func (c *Class) remoteCheck(r *http.Request, p person, from, id string, text *string) (*serve.Verdict, error) {
	if p.Role != access.RoleStudent {
		return nil, errors.New("class: lessons check --remote judges a student's file: the instructor checks on the page")
	}
	x, err := c.exercise(id)
	if err != nil {
		return nil, err
	}
	if text == nil {
		return nil, errors.New("class: no file to check: lessons check --remote sends the file")
	}
	if err := c.queue.Refuse(p.ID); err != nil {
		return nil, err
	}
	if err := c.audit.Log(p.ID, from, "save", x.ID); err != nil {
		return nil, err
	}
	if err := c.writeCopy(p.ID, x, *text); err != nil {
		return nil, err
	}
	if err := c.audit.Log(p.ID, from, "check", x.ID+" (remote)"); err != nil {
		return nil, err
	}
	c.touch(p.ID, "check "+x.ID)
	v, err := (&studentChecker{c: c, id: p.ID}).Check(r.Context(), x.ID)
	if v != nil {
		v.Trigger = "remote"
	}
	return v, err
}

// RemoteCheck is lessons check --remote: it sends src, the student's
// file of exercise x, to the class server ($LESSONS_CLASS_SERVER, else
// course.toml's [class] server) with the student's token (lessons
// submit's, $LESSONS_CLASS_TOKEN), and prints the verdict to t as lessons check
// prints its own: the same lines, from the same exercise.Student, and
// with save the same record in the course's progress (study.Settle). It
// is not a submission. A file that fails a check is a *failure.Silent; a
// verdict the server could not make (the queue's limit, no such
// exercise, a bad token) a *failure.Tool.
func RemoteCheck(ctx context.Context, t study.Terminal, c *course.Course, x *course.Exercise, src string, verbose, save bool, tl study.Timeline) error {
	if tl.On() {
		return failure.Usagef("check --remote draws no timeline: the server sends the verdict, not the run's trace; leave out --timeline, --compare and --timeline-out")
	}
	base, token := cmp.Or(os.Getenv("LESSONS_CLASS_SERVER"), c.ClassServer), os.Getenv("LESSONS_CLASS_TOKEN")
	if base == "" || token == "" {
		return failure.Toolf("check --remote needs the class server (course.toml's [class] server, or $LESSONS_CLASS_SERVER) and your token ($LESSONS_CLASS_TOKEN, from the class page's \"Token for lessons submit\")")
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return failure.Toolf("check --remote: %w", err)
	}
	var v serve.Verdict
	if err := post(ctx, http.DefaultClient, base, token, "api/check", x.ID, string(data), &v); err != nil {
		return &failure.Tool{Err: fmt.Errorf("check %s on %s: %w", x.ID, base, err)}
	}
	if v.Error != "" {
		return failure.Toolf("check %s on %s: %s", x.ID, base, v.Error)
	}
	spec, err := exercise.LoadSpec(c, x)
	if err != nil {
		return err
	}
	st := exercise.Remote(x, spec, results(spec.Public(), v.Checks), v.Output)
	fmt.Fprint(t.Out, ui.Fit(fmt.Sprintf("Checking %s (%s) on %s: not a submission\n\n", x.ID, strings.TrimPrefix(src, c.Root+string(filepath.Separator)), ui.Clip(base, 120)), t.Width))
	study.WriteVerdict(t, st, verbose)
	passed, err := study.Settle(t, c, st, src, save)
	if err == nil && !passed {
		err = &failure.Silent{}
	}
	return err
}

// RemoteIf is lessons watch --remote's checker when on (RemoteCheck
// for each save: whether it passed, an error only when no verdict
// came), nil when off.
func RemoteIf(on bool) study.Remote {
	if !on {
		return nil
	}
	return func(ctx context.Context, t study.Terminal, c *course.Course, x *course.Exercise, src string, verbose, save bool) (bool, error) {
		err := RemoteCheck(ctx, t, c, x, src, verbose, save, study.Timeline{})
		if silent := (*failure.Silent)(nil); errors.As(err, &silent) {
			return false, nil
		}
		return err == nil, err
	}
}

// results are the server's verdict's checks as the judge gave them, each
// tied to the check of spec (the public checks) it came from by the name
// the judge gives that check, so that its points and hint are the
// course's own.
func results(spec *checker.Spec, got []serve.CheckResult) []checker.Result {
	byName := map[string][]*checker.Check{}
	for _, r := range spec.Judge(&checker.Run{}) {
		if r.Check != nil {
			byName[r.Name] = append(byName[r.Name], r.Check)
		}
	}
	var out []checker.Result
	for _, g := range got {
		r := checker.Result{Name: g.Name, Pass: g.Pass, Skipped: g.Skipped, Want: g.Want, Got: g.Got}
		if cs := byName[g.Name]; len(cs) > 0 {
			r.Check, byName[g.Name] = cs[0], cs[1:]
		}
		out = append(out, r)
	}
	return out
}

// post sends exercise and text to the class API's op with the token and
// decodes its answer into v.
func post(ctx context.Context, client *http.Client, base, token, op, exercise, text string, v any) error {
	if err := tokenSafe(base); err != nil {
		return err
	}
	body, _ := json.Marshal(map[string]string{"exercise": exercise, "text": text})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+classPrefix+op, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	// A redirect is not followed: the token goes to the address given, or
	// nowhere (a redirect to plain http, or to another host, would carry
	// it elsewhere).
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		return fmt.Errorf("the server answered with a redirect to %s (%s): give that address as the class server if it is the class's", ui.Clip(ui.Printable(res.Header.Get("Location")), 200), res.Status)
	}
	data, _ := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if res.StatusCode != http.StatusOK {
		var e struct{ Error string }
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(data))
		}
		return fmt.Errorf("%s (%s)", ui.Printable(e.Error), res.Status)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("the answer is not the class server's: %v", err)
	}
	return nil
}

// tokenSafe refuses a class server address that would carry a student's
// token across the network in the clear: https:// anywhere, http:// only
// to this machine (a loopback address, or localhost).
func tokenSafe(base string) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("%q is not a class server's address: give it as the class page shows it (https://gpu.uni.example)", ui.Clip(ui.Printable(base), 200))
	}
	if u.Scheme == "https" {
		return nil
	}
	h := u.Hostname()
	if ip := net.ParseIP(h); (ip != nil && ip.IsLoopback()) || strings.EqualFold(h, "localhost") {
		return nil
	}
	return fmt.Errorf("%s is plain http to another machine: your token would cross the network in the clear; give the server's https:// address (the class page's), or ask your instructor for one", ui.Clip(ui.Printable(base), 200))
}
