package machine

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/ui"
)

// Doctor writes lessons doctor's table of what this machine has for the
// course, fit to width columns: each GPU and the driver, nvcc, compute-sanitizer, the rows of
// extra (a name and what it is here), then the compile cache; for each
// piece missing, what to do. It returns how many pieces that running
// lessons needs are missing.
func Doctor(w io.Writer, width int, extra [][2]string) (missing int, err error) {
	var report strings.Builder
	tw := tabwriter.NewWriter(&report, 0, 4, 2, ' ', 0)
	info, err := Prober().Probe(true)
	switch {
	case err != nil:
		missing++
		fmt.Fprintf(tw, "GPU\tnone: %v\n", err)
		fmt.Fprintf(tw, "\t→ lessons can still compile (lessons run --compile-only); running needs an NVIDIA GPU and its driver\n")
	case len(info.Devices) == 0:
		missing++
		fmt.Fprintf(tw, "GPU\tnone: the driver (CUDA %s) lists no device\n", info.DriverVersion())
	default:
		for _, d := range info.Devices {
			fmt.Fprintf(tw, "GPU %d\t%s (%s), %s total, %s free\n", d.Index, d.Name, d.Arch(), gib(d.TotalBytes), gib(d.FreeBytes))
		}
		fmt.Fprintf(tw, "driver\tCUDA %s\n", info.DriverVersion())
	}
	nvcc, err := gpu.NVCC(context.Background(), "")
	nvccPath := ""
	if err != nil {
		missing++
		fmt.Fprintf(tw, "nvcc\tnot found\n\t→ %v\n", err)
	} else {
		nvccPath = nvcc.Path
		fmt.Fprintf(tw, "nvcc\t%s (%s)\n", nvcc.Path, nvcc.Version)
	}
	// The one that check and grade would use.
	if p := SanitizerPath(nvccPath); p != "" {
		fmt.Fprintf(tw, "compute-sanitizer\t%s\n", p)
	} else {
		fmt.Fprintf(tw, "compute-sanitizer\tnot found (optional: checks for memory errors and leaks; it comes with the CUDA toolkit)\n")
	}
	for _, row := range extra {
		fmt.Fprintf(tw, "%s\t%s\n", row[0], row[1])
	}
	if c, err := buildcache.Default(); err != nil {
		fmt.Fprintf(tw, "cache\t%v\n", err)
	} else {
		s, _ := c.Stats()
		fmt.Fprintf(tw, "cache\t%s: %d builds, %.1f MiB of %.0f MiB; %d hits, %d misses\n",
			c.Dir, s.Entries, float64(s.Bytes)/(1<<20), float64(c.MaxBytes)/(1<<20), s.Hits, s.Misses)
	}
	if err := tw.Flush(); err != nil {
		return missing, err
	}
	_, err = io.WriteString(w, ui.Fit(report.String(), width))
	return missing, err
}

func gib(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
