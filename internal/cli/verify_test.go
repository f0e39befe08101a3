package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/cudalessons/lessons/internal/failure"
	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestVerifyFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	for _, c := range []struct {
		args           []string
		perGPU, queues int
		usage          string
	}{
		{args: nil}, // both chosen from the course
		{args: []string{"--per-gpu", "3", "--gpu-queues", "2"}, perGPU: 3, queues: 2},
		{args: []string{"--per-gpu", "0"}, usage: "--per-gpu is 1 to 64, not 0"},
		{args: []string{"--gpu-queues", "33"}, usage: "--gpu-queues is 1 to 32"},
	} {
		var got *VerifyOptions
		err := execute(newVerify(ios, &globals{}, func(o *VerifyOptions) error { got = o; return nil }), c.args...)
		if c.usage != "" {
			var usage *failure.Usage
			if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.usage) {
				t.Errorf("%v: err = %v, want a usage error %q", c.args, err, c.usage)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got.PerGPU != c.perGPU || got.Queues != c.queues {
			t.Errorf("%v: per GPU %d, queues %d; want %d, %d", c.args, got.PerGPU, got.Queues, c.perGPU, c.queues)
		}
	}
}
