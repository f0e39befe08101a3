package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/failure"
)

// wantUsage fails unless err is a usage error saying want.
func wantUsage(t *testing.T, err error, want string) {
	t.Helper()
	var usage *failure.Usage
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want a usage error %q", err, want)
	}
}

// contains is whether s holds every one of want.
func contains(s string, want ...string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
