package author

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudalessons/lessons/checker"
	"github.com/cudalessons/lessons/internal/course"
)

// SecretFile is where an exercise's secret spec lives: beside its
// solution, with the extension .toml (solutions/day069/async_pipeline.toml),
// so that a course handed to students without solutions/ has none of it.
func SecretFile(x *course.Exercise) string {
	return strings.TrimSuffix(x.Solution, filepath.Ext(x.Solution)) + ".toml"
}

// AddSecret adds the exercise's secret spec, when it has one, to spec:
// its hidden checks, hidden runs and accepted mutants.
func AddSecret(c *course.Course, x *course.Exercise, spec *checker.Spec) error {
	file := c.Path(SecretFile(x))
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	secret, err := checker.ParseSecret(file, data)
	if err != nil {
		return err
	}
	return spec.AddSecret(secret)
}
