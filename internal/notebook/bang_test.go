package notebook

import (
	"os/exec"
	"testing"
)

// Without a GPU, a ! line that needs none runs whole; one that runs a
// program runs its nvcc steps only; nvidia-smi runs where it is installed.
func TestOffline(t *testing.T) {
	_, smiErr := exec.LookPath("nvidia-smi")
	smi := ""
	if smiErr == nil {
		smi = "nvidia-smi"
	}
	for _, c := range []struct{ line, want string }{
		{"ls -l *.cu", "ls -l *.cu"},
		{"rm -f a.out && pip install numba", "rm -f a.out && pip install numba"},
		{"nvcc --version | tail -1", "nvcc --version | tail -1"},
		{"nvcc -o a a.cu && ./a", "nvcc -o a a.cu"},
		{"./a", ""},
		{"time ./bin/a 10", ""},
		{"ncu ./a", ""},
		{"python3 train.py", ""},
		{"nvidia-smi", smi},
		{"CUDA_VISIBLE_DEVICES=0 ./a", ""},
	} {
		if got, _ := offline(c.line); got != c.want {
			t.Errorf("offline(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}
