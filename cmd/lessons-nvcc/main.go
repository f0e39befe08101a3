// Command lessons-nvcc is the compile cache's nvcc wrapper alone: a lesson's
// cell that calls nvcc runs it (lessons links the cell's nvcc to it when it
// is installed beside lessons, with go install ./cmd/...). It is the
// wrapper that lessons itself is when run as nvcc, without the rest of the
// program, so that it starts in a few milliseconds: a warm re-run of a
// lesson starts one for each nvcc of its cells.
package main

import (
	"os"

	"github.com/cudalessons/lessons/internal/nvccwrap"
)

func main() { os.Exit(nvccwrap.Main(os.Args[1:])) }
