package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/gpu"
	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/exercise"
	hw "github.com/cudalessons/lessons/internal/machine"
	"github.com/cudalessons/lessons/internal/ui"
)

// DoctorOptions are the inputs of lessons doctor.
type DoctorOptions struct {
	IO *IOStreams
}

func newDoctor(io *IOStreams, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: io}
	return &cobra.Command{
		Use:   "doctor",
		Short: "Say what this machine has for the course: GPU, driver, nvcc, grading sandbox, cache",
		Long: `Say what this machine has for running the course: each GPU (name, compute
capability, memory), the driver, nvcc (path and version), compute-sanitizer,
what the grading sandbox can use here, and the compile cache; and for each
missing piece, what to do. Exits 1 when
something that running lessons needs is missing.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return doctorRun(opts)
		},
	}
}

func gib(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

func doctorRun(opts *DoctorOptions) error {
	io := opts.IO
	var report strings.Builder
	tw := tabwriter.NewWriter(&report, 0, 4, 2, ' ', 0)
	missing := 0
	info, err := hw.Prober().Probe(true)
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
	if p := hw.SanitizerPath(nvccPath); p != "" {
		fmt.Fprintf(tw, "compute-sanitizer\t%s\n", p)
	} else {
		fmt.Fprintf(tw, "compute-sanitizer\tnot found (optional: checks for memory errors and leaks; it comes with the CUDA toolkit)\n")
	}
	fmt.Fprintf(tw, "grading sandbox\t%s\n", sandboxSummary())
	fmt.Fprintf(tw, "driver cross-check\t%s\n", exercise.DriverCheckSummary())
	if c, err := buildcache.Default(); err != nil {
		fmt.Fprintf(tw, "cache\t%v\n", err)
	} else {
		s, _ := c.Stats()
		fmt.Fprintf(tw, "cache\t%s: %d builds, %.1f MiB of %.0f MiB; %d hits, %d misses\n",
			c.Dir, s.Entries, float64(s.Bytes)/(1<<20), float64(c.MaxBytes)/(1<<20), s.Hits, s.Misses)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprint(io.Out, ui.Fit(report.String(), io.Width()))
	if missing > 0 {
		return errSilent
	}
	return nil
}

// sandboxSummary says in a line what lessons grade's sandbox gave a probe
// started in it here.
func sandboxSummary() string { return exercise.Probe().Brief() }

// CacheOptions are the inputs of lessons cache.
type CacheOptions struct {
	IO    *IOStreams
	Clean bool // lessons cache clean
}

func newCache(io *IOStreams, runF func(*CacheOptions) error) *cobra.Command {
	opts := &CacheOptions{IO: io}
	cmd := &cobra.Command{
		Use:     "cache [clean]",
		Short:   "Show or clean the compile cache",
		Example: "  lessons cache\n  lessons cache clean\n  LESSONS_CACHE_MAX=500M lessons run 70",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 || (len(args) == 1 && args[0] != "clean") {
				return usagef("cache takes nothing, or clean")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Clean = len(args) == 1
			if runF != nil {
				return runF(opts)
			}
			return cacheRun(opts)
		},
	}
	return cmd
}

func cacheRun(opts *CacheOptions) error {
	io := opts.IO
	c, err := buildcache.Default()
	if err != nil {
		return err
	}
	if opts.Clean {
		if err := c.Clean(); err != nil {
			return err
		}
		fmt.Fprintf(io.Out, "emptied %s\n", c.Dir)
		return nil
	}
	s, err := c.Stats()
	if err != nil {
		return err
	}
	rate := 0.0
	if s.Hits+s.Misses > 0 {
		rate = 100 * float64(s.Hits) / float64(s.Hits+s.Misses)
	}
	fmt.Fprintf(io.Out, "%s\n%d builds, %.1f MiB (bound %.0f MiB, set with LESSONS_CACHE_MAX)\n%d hits, %d misses (%.0f%% hit rate)\n",
		c.Dir, s.Entries, float64(s.Bytes)/(1<<20), float64(c.MaxBytes)/(1<<20), s.Hits, s.Misses, rate)
	return nil
}
