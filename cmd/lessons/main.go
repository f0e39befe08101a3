// Command lessons reads, runs and checks a day-by-day CUDA course.
package main

import (
	"os"

	"github.com/cudalessons/lessons/internal/cli"
)

func main() { os.Exit(cli.Main()) }
