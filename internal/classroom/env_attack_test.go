package classroom

import (
	"strings"
	"testing"
)

// secretsOfTheServer are what a class server may be started with: an
// LMS's token, a cloud key, lessons' own sign-in token.
var secretsOfTheServer = map[string]string{
	"CANVAS_API_TOKEN":      "canvas-sekrit-1",
	"AWS_SECRET_ACCESS_KEY": "aws-sekrit-2",
	"LESSONS_CLASS_TOKEN":   "class-sekrit-3",
	"DATABASE_URL":          "postgres://u:sekrit-4@db/x",
}

const printEnvCell = "# Day 1: Hello\n\n```sh run\nenv; echo END\n```\n"

// Door 4: a class cell started from os.Environ() printed the server's
// CANVAS_API_TOKEN. A cell's environment is built for it.
func TestAttackCellSeesNoServerEnvironment(t *testing.T) {
	for k, v := range secretsOfTheServer {
		t.Setenv(k, v)
	}
	tc := newTestClass(t, func(cfg *Config) {
		writeTree(t, cfg.Course.Root, map[string]string{"lessons/day001-hello.md": printEnvCell})
	})
	ann := tc.browser()
	ann.signin(tc.invite("ann"))
	out, status := ann.runCell("day001-hello", 1)
	if !strings.Contains(out, "END") || strings.TrimSpace(status) != "ok" {
		t.Fatalf("the cell: %q %q", out, status)
	}
	for k, v := range secretsOfTheServer {
		if strings.Contains(out, v) {
			t.Errorf("the cell printed the server's %s", k)
		}
	}
	if !strings.Contains(out, "PATH=") || !strings.Contains(out, "HOME=") {
		t.Errorf("the cell has no PATH or HOME: %q", out)
	}
}

// Door 4, the attack of our own: the same cell on a GPU node, through
// the pilot, whose worker's own environment (here, this process's) holds
// the secrets: the node builds the cell's environment too.
func TestAttackNodeCellSeesNoPilotEnvironment(t *testing.T) {
	for k, v := range secretsOfTheServer {
		t.Setenv(k, v)
	}
	rr := newRemoteClass(t)
	writeTree(t, rr.class.cfg.Course.Root, map[string]string{"lessons/day001-hello.md": printEnvCell})
	ann := rr.browser()
	ann.signin(rr.invite("ann"))
	out, status := ann.runCell("day001-hello", 1)
	if !strings.Contains(out, "END") || strings.TrimSpace(status) != "ok" {
		t.Fatalf("the cell: %q %q", out, status)
	}
	for k, v := range secretsOfTheServer {
		if strings.Contains(out, v) {
			t.Errorf("the node's cell printed the %s", k)
		}
	}
}
