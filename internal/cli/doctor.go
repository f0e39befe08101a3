package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/iostreams"
	hw "github.com/cudalessons/lessons/internal/machine"
)

// DoctorOptions are the inputs of lessons doctor.
type DoctorOptions struct {
	IO   *iostreams.IOStreams
	Pace bool // --pace: measure how fast this machine grades
}

func newDoctor(io *iostreams.IOStreams, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "doctor [--pace]",
		Short: "Say what this machine has for the course: GPU, driver, nvcc, grading sandbox, cache",
		Long: `Say what this machine has for running the course: each GPU (name, compute
capability, memory), the driver, nvcc (path and version), compute-sanitizer,
what the grading sandbox can use here, and the compile cache; and for each
missing piece, what to do. Exits 1 when something that running lessons needs
is missing. --pace also measures builds and CUDA starts a second (about 10 s).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return doctorRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Pace, "pace", false, "also measure builds and CUDA starts a second here, and say what sets a grade's pace (needs a GPU)")
	return cmd
}

func doctorRun(opts *DoctorOptions) error {
	missing, err := hw.Doctor(opts.IO.Out, opts.IO.Width(), grade.DoctorRows())
	if err == nil && opts.Pace { // after the table: it names what is missing
		err = hw.DoctorPace(opts.IO.Out, opts.IO.Width(), grade.MachinePerGPU())
	}
	if err == nil && missing > 0 {
		err = errSilent
	}
	return err
}

// CacheOptions are the inputs of lessons cache.
type CacheOptions struct {
	IO    *iostreams.IOStreams
	Clean bool // lessons cache clean
}

func newCache(io *iostreams.IOStreams, runF func(*CacheOptions) error) *cobra.Command {
	opts := &CacheOptions{IO: io}
	return &cobra.Command{
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
	report, err := c.Report()
	if err != nil {
		return err
	}
	fmt.Fprint(io.Out, report)
	return nil
}
