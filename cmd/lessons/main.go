// Command lessons reads, runs and checks a day-by-day CUDA course.
//
// Run as nvcc (through a link that lessons run puts first on a cell's
// PATH), it is the compile cache's nvcc wrapper.
package main

import (
	"os"
	"path/filepath"

	"github.com/cudalessons/lessons/internal/cli"
	"github.com/cudalessons/lessons/internal/nvccwrap"
	"github.com/cudalessons/lessons/internal/sandbox"
)

func main() {
	sandbox.Helper() // a sandboxed child: set its limits, then become the program
	if filepath.Base(os.Args[0]) == "nvcc" {
		os.Exit(nvccwrap.Main(os.Args[1:]))
	}
	os.Exit(cli.Main())
}
