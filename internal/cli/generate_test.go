package cli

import (
	"testing"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestGenerateFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *GenerateOptions
	if err := execute(newGenerate(ios, &globals{}, func(o *GenerateOptions) error { got = o; return nil }), "--check", "--force"); err != nil || !got.Check || !got.Force {
		t.Errorf("generate --check --force: %+v, %v", got, err)
	}
	wantUsage(t, execute(newGenerate(ios, &globals{}, func(*GenerateOptions) error { return nil }), "pipe"), "generate takes no arguments")
}
