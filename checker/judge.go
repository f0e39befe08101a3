package checker

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Run is what a run of an exercise did: what it printed, how it ended, and
// its statistics (nil when none were recorded).
type Run struct {
	Output   string
	ExitCode int
	// Ended says how the run ended when it did not exit by itself
	// ("timed out after 30s", "killed by signal 11"); "" otherwise.
	Ended string
	Stats *Stats
	// Children is the record of the child processes the program forked
	// that called CUDA, merged (nil when there were none): what a check
	// of a "children." or "all." statistic reads.
	Children *Stats
	// StatsErr says why a record that was written could not be read
	// ("not built with -cudart shared", a record of another version); ""
	// when there was none, or it was read.
	StatsErr string
	// Untrusted says why the statistics record cannot be trusted (a frame
	// the library did not write, a record cut short, a CUDA runtime the
	// library does not watch); "" when it can. Such a run fails the check
	// "statistics recorded by the library", whatever else it did.
	Untrusted string
	// Sanitizers are the runs under compute-sanitizer, by tool; a
	// sanitizer check whose tool has no report is skipped.
	Sanitizers map[string]*SanitizerReport
	// Driver is what the GPU's driver saw of the run, when it was
	// watched (NVML is there): the record is cross-checked against it.
	Driver *DriverView
	// Witness is what the kernel counted of the run's CUDA calls from
	// outside it, when it was watched (root, or CAP_BPF and CAP_PERFMON):
	// the record's counts are compared with it.
	Witness *WitnessView
	// Before are the records of the runs made before this one, by run
	// name ("" the public run; nil where a run recorded none): the
	// baselines of relative_to checks.
	Before map[string]*Stats
}

// Result is one check's verdict.
type Result struct {
	Check *Check
	Pass  bool
	// Skipped checks could not be made here (compute-sanitizer is not
	// installed): they pass, and Got says why they were skipped.
	Skipped bool
	// Name is what was checked, Got what happened and Want what was
	// expected, in words.
	Name, Got, Want string
	// Review, when set, is what an instructor should look at, passed or
	// not: a record the driver contradicts, memory it did not account for.
	Review string
}

// Judge applies every check of the spec to a run. A run that did not end
// by itself (stopped at its time limit, killed by a signal, cut for its
// output) fails one more check, "ends by itself", whatever it printed
// before: a program that prints the right lines and then hangs is not done.
func (s *Spec) Judge(r *Run) []Result {
	out := make([]Result, 0, len(s.Checks)+1)
	if r.Ended != "" {
		out = append(out, Result{Name: "ends by itself", Want: "the program to finish on its own within " + s.TimeLimit().String(), Got: r.Ended})
	}
	if r.Untrusted != "" {
		out = append(out, Result{Name: "statistics recorded by the library", Want: "the statistics library's whole record, out of the program's reach", Got: r.Untrusted})
	}
	unarranged := s.arranged != "" && !strings.Contains(r.Output, s.arranged)
	for i := range s.Checks {
		if s.Checks[i].Run != s.run {
			continue
		}
		res := judge(&s.Checks[i], r)
		if unarranged {
			res = notArranged(res, s.run, s.arranged)
		}
		out = append(out, res)
	}
	if r.Driver != nil {
		out = append(out, judgeDriver(r))
	}
	if r.Witness != nil && r.Untrusted == "" {
		out = append(out, judgeWitness(r, len(s.fail)))
	}
	return out
}

// notArranged is a check of a hidden run whose output lacks the text
// that says its case was set up (HiddenRun.Arranged): not made, so
// skipped, and marked for review, since a program can leave the text
// out as well as a machine can fail to set the case up.
func notArranged(res Result, run, text string) Result {
	res.Pass, res.Skipped = true, true
	res.Got = fmt.Sprintf("skipped: the case of run %q was not set up here (the output has no %q)", run, text)
	res.Review = fmt.Sprintf("the checks of hidden run %q were not made: its output lacks %q, which the harness prints once it has set up the case they judge", run, text)
	return res
}

// Passed reports whether every result passed.
func Passed(rs []Result) bool {
	for _, r := range rs {
		if !r.Pass {
			return false
		}
	}
	return true
}

func judge(c *Check, r *Run) Result {
	res := Result{Check: c}
	switch {
	case c.Contains != "":
		res.Name = fmt.Sprintf("prints %q", c.Contains)
		res.Pass = strings.Contains(r.Output, c.Contains)
		res.Want, res.Got = "the output to contain "+strconv.Quote(c.Contains), "it does not"
	case c.NotContains != "":
		res.Name = fmt.Sprintf("does not print %q", c.NotContains)
		res.Pass = !strings.Contains(r.Output, c.NotContains)
		res.Want, res.Got = "the output not to contain "+strconv.Quote(c.NotContains), "it does"
	case c.Exit != nil:
		res.Name = fmt.Sprintf("exits with status %d", *c.Exit)
		res.Pass = r.Ended == "" && r.ExitCode == *c.Exit
		res.Want = fmt.Sprintf("exit status %d", *c.Exit)
		res.Got = fmt.Sprintf("exit status %d", r.ExitCode)
		if r.Ended != "" {
			res.Got = r.Ended
		}
	case c.Regex != "":
		res.Name = fmt.Sprintf("output matches %s", c.Regex)
		m := c.re.FindStringSubmatch(r.Output)
		if m == nil {
			res.Want, res.Got = "a line matching "+c.Regex, "no line matches"
			break
		}
		if !hasBounds(c) {
			res.Pass = true
			break
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(m[c.Group]), 64)
		if err != nil {
			res.Want, res.Got = "a number in "+strconv.Quote(m[0]), fmt.Sprintf("%q is not a number", m[c.Group])
			break
		}
		var other *float64 // equal_to_group's number
		if g := c.EqualToGroup; g > 0 && g < len(m) {
			o, err := strconv.ParseFloat(strings.TrimSpace(m[g]), 64)
			if err != nil {
				res.Want, res.Got = "a number in "+strconv.Quote(m[0]), fmt.Sprintf("%q is not a number", m[g])
				break
			}
			other = &o
		}
		res.Pass, res.Want = bounds(c, v, r, other)
		res.Got = fmt.Sprintf("%g (from %q)", v, strings.TrimSpace(m[0]))
	case c.Stat != "":
		_, want := bounds(c, 0, r, nil)
		res.Name = describe(c.Stat) + ": " + want
		if c.RelativeTo != "" {
			res.Name = fmt.Sprintf("%s, as a multiple of run %s's: %s", describe(c.Stat), c.RelativeTo, want)
		}
		if r.Stats == nil {
			res.Want, res.Got = res.Name, "no statistics were recorded: the program did not call CUDA, or crashed before it did"
			if r.StatsErr != "" {
				res.Got = r.StatsErr
			}
			break
		}
		st, name := r.scoped(c.Stat)
		v, _ := st.Value(name)
		if c.RelativeTo != "" {
			judgeRelative(c, r, v, &res)
			break
		}
		res.Pass, res.Want = bounds(c, v, r, nil)
		res.Got = sayValue(name, v)
		if note := st.RaceNote(name); !res.Pass && note != "" {
			res.Got += "; the first: " + note
		}
	case c.Sanitizer != "":
		judgeSanitizer(c, r, &res)
	}
	if c.Name != "" {
		res.Name = c.Name
	}
	if !res.Pass && c.Message != "" {
		res.Want = c.Message
	}
	return res
}

// judgeRelative bounds v divided by the same statistic of the baseline
// run c names.
func judgeRelative(c *Check, r *Run, v float64, res *Result) {
	base := r.Before[c.RelativeTo]
	if base == nil {
		res.Want, res.Got = res.Name, fmt.Sprintf("run %s, the baseline, recorded no statistics", c.RelativeTo)
		return
	}
	b, _ := base.Value(c.Stat)
	if b == 0 {
		res.Want, res.Got = res.Name, fmt.Sprintf("%s is 0 in run %s, the baseline: there is nothing to compare with", describe(c.Stat), c.RelativeTo)
		return
	}
	ratio := v / b
	res.Pass, res.Want = bounds(c, ratio, r, nil)
	res.Got = fmt.Sprintf("%.3g times run %s's (%s here, %s there)", ratio, c.RelativeTo, num(v), num(b))
}

func judgeSanitizer(c *Check, r *Run, res *Result) {
	res.Name = "clean under compute-sanitizer " + c.Sanitizer
	if c.Sanitizer == "memcheck" {
		res.Name += " (leaks included)"
	}
	res.Want = "no error reported by compute-sanitizer --tool " + c.Sanitizer
	rep := r.Sanitizers[c.Sanitizer]
	switch {
	case rep == nil:
		res.Pass, res.Skipped, res.Got = true, true, "skipped: the run was not made under compute-sanitizer"
	case rep.Skipped != "":
		res.Pass, res.Skipped, res.Got = true, true, "skipped: "+rep.Skipped
		if rep.Unfinished {
			res.Review = "compute-sanitizer --tool " + c.Sanitizer + " ended without a summary on this program (" + rep.Skipped + "): a program can stop the tool it runs under, and the check was not made"
		}
	case !rep.Summary:
		res.Got = "compute-sanitizer did not finish"
		if rep.Ended != "" {
			res.Got += ": " + rep.Ended
		}
		if rep.First != "" {
			res.Got += "; the first error: " + rep.First
		}
	case rep.Errors > 0:
		res.Got = fmt.Sprintf("%d errors", rep.Errors)
		if rep.Errors == 1 {
			res.Got = "1 error"
		}
		if rep.LeakedBytes > 0 {
			res.Got += fmt.Sprintf(" (%d bytes leaked)", rep.LeakedBytes)
		}
		if rep.First != "" {
			res.Got += "; the first: " + rep.First
		}
	default:
		res.Pass, res.Got = true, "no errors"
	}
}

func hasBounds(c *Check) bool {
	return c.AtLeast != nil || c.AtMost != nil || c.Equals != nil || c.EqualTo != "" || c.EqualToGroup != 0
}

// bounds checks v against every bound of c and says what was wanted;
// group is the number equal_to_group captured, or nil.
func bounds(c *Check, v float64, r *Run, group *float64) (bool, string) {
	ok := true
	var want []string
	if c.AtLeast != nil {
		ok = ok && v >= *c.AtLeast
		want = append(want, "at least "+num(*c.AtLeast))
	}
	if c.AtMost != nil {
		ok = ok && v <= *c.AtMost
		want = append(want, "at most "+num(*c.AtMost))
	}
	if c.Equals != nil {
		ok = ok && near(v, *c.Equals, c.Within)
		want = append(want, equalsWords(*c.Equals, c.Within))
	}
	if c.EqualTo != "" {
		w := "equal to " + c.EqualTo
		other, known := math.NaN(), false
		if r != nil && r.Stats != nil {
			st, name := r.scoped(c.EqualTo)
			other, known = st.Value(name)
		}
		if c.Unit != 0 {
			w += " / " + num(c.Unit)
		}
		if known {
			// Without a record there is no value to name: "equal to
			// malloc_async_calls", never "(NaN)".
			shown := other
			if c.Unit != 0 {
				other /= c.Unit
				shown = math.Round(other*100) / 100
			}
			w += " (" + num(shown)
			if c.Unit != 0 {
				// Say what passes: the whole numbers, and the tolerance.
				w += ", printed whole " + num(math.Floor(other))
				if r := math.Round(other); r != math.Floor(other) {
					w += " or " + num(r)
				}
				if c.Within != 0 {
					w += fmt.Sprintf(", or within %g%%", c.Within*100)
				}
			}
			w += ")"
		}
		match := near(v, other, c.Within)
		if c.Unit != 0 {
			// A whole number printed in a larger unit is the quotient
			// rounded down (>> 20, int()) or to the nearest (round(),
			// "%.0f"). A count in a smaller unit (MB for MiB, 4.9% more)
			// is neither once the quotient passes about 20.5, whole or
			// rounded; cut down (int() of the MB), it can still equal
			// the quotient rounded up until about 30.5 (25.5 MiB is
			// 26.74 MB: 26 both ways), and within 1% it passes until
			// about 26. The course's peaks are 48 MiB and more.
			match = match || v == math.Floor(other) || v == math.Round(other)
		}
		ok = ok && known && match
		want = append(want, w)
	}
	if group != nil {
		ok = ok && near(v, *group, c.Within)
		w := "equal to " + num(*group)
		if c.Within != 0 {
			w = equalsWords(*group, c.Within)
		}
		want = append(want, fmt.Sprintf("%s (group %d)", w, c.EqualToGroup))
	}
	return ok, strings.Join(want, " and ")
}

func near(v, want, rel float64) bool {
	if rel == 0 {
		return v == want
	}
	return math.Abs(v-want) <= rel*math.Abs(want)
}

func equalsWords(v, rel float64) string {
	if rel == 0 {
		return "exactly " + num(v)
	}
	return fmt.Sprintf("%s within %g%%", num(v), rel*100)
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// what a statistic counts, in a student's words.
var phrases = map[string]string{
	"malloc_calls":               "calls of cudaMalloc",
	"free_calls":                 "calls of cudaFree",
	"malloc_async_calls":         "calls of cudaMallocAsync",
	"free_async_calls":           "calls of cudaFreeAsync",
	"malloc_from_pool_calls":     "calls of cudaMallocFromPoolAsync",
	"malloc_managed_calls":       "calls of cudaMallocManaged",
	"pools_created":              "pools created with cudaMemPoolCreate",
	"release_threshold_sets":     "release thresholds set",
	"pool_trims":                 "calls of cudaMemPoolTrimTo",
	"event_records":              "calls of cudaEventRecord",
	"stream_wait_events":         "calls of cudaStreamWaitEvent",
	"leaked_allocs":              "allocations never freed",
	"leaked_bytes":               "bytes never freed",
	"free_other_stream":          "frees on another stream than the allocation's",
	"async_streams":              "streams that allocated with cudaMallocAsync",
	"peak_live_bytes":            "bytes live at the peak",
	"pool_used_high":             "the pool's high watermark of used bytes",
	"vmm_reserve_calls":          "calls of cuMemAddressReserve",
	"vmm_create_calls":           "calls of cuMemCreate",
	"vmm_map_calls":              "calls of cuMemMap",
	"vmm_set_access_calls":       "calls of cuMemSetAccess",
	"vmm_unmap_calls":            "calls of cuMemUnmap",
	"vmm_release_calls":          "calls of cuMemRelease",
	"vmm_retain_calls":           "cuMemRetainAllocationHandle and cuMemImportFromShareableHandle calls that succeeded (each takes a reference a cuMemRelease gives back)",
	"vmm_retain_attempts":        "calls of cuMemRetainAllocationHandle and cuMemImportFromShareableHandle, made or made to fail (the outside witness's bound on its count of the two)",
	"vmm_refs_unreleased":        "references to physical memory (cuMemCreate's, cuMemRetainAllocationHandle's, cuMemImportFromShareableHandle's) not given back by a cuMemRelease that succeeded, at exit",
	"vmm_handle_refs":            "references to physical memory taken: cuMemCreate calls, and cuMemRetainAllocationHandle and cuMemImportFromShareableHandle calls that succeeded (vmm_create_calls + vmm_retain_calls), each given back by a cuMemRelease of its own",
	"vmm_map_bytes":              "bytes mapped with cuMemMap",
	"kernel_launches":            "kernel launches",
	"launches_inspected":         "kernel launches whose arguments were inspected",
	"buffer_uses":                "uses of allocated buffers by kernels and async copies",
	"unordered_uses":             "uses of memory on a stream not ordered after its allocation, or after another stream's use of the same bytes",
	"unordered_frees":            "frees of a buffer that a kernel on another stream may still be using",
	"sync_memsets":               "calls of cudaMemset (not in stream order)",
	"sync_memcpys":               "calls of cudaMemcpy (the host waits for each)",
	"device_syncs":               "calls of cudaDeviceSynchronize (or cuCtxSynchronize)",
	"stream_syncs":               "calls of cudaStreamSynchronize (or cuStreamSynchronize)",
	"event_syncs":                "calls of cudaEventSynchronize (or cuEventSynchronize)",
	"waits_between_async_allocs": "host waits between one stream-ordered allocation and the next",
	"async_stream_syncs":         "synchronisations of a stream that allocated with cudaMallocAsync",
	"default_stream_ops":         "launches, stream-ordered calls and event records on the default stream",
	"kernel_allocs_used":         "distinct allocations passed to kernels",
	"kernel_addresses_used":      "distinct addresses inside allocations passed to kernels",
	"kernel_alloc_bytes_max":     "bytes of the largest allocation passed to kernels",
	"event_pairs":                "waits for an event recorded on another stream",
	"kernels_timed":              "kernel launches timed on the GPU",
	"max_concurrent_streams":     "the most streams running kernels at one instant",
	"max_unordered_streams":      "the most streams whose queued work the program's own ordering left free to run at once",
	"max_unordered_users":        "the most streams whose uses of one buffer the program's own ordering left free to run at once",
	"registered_unmapped":        "host ranges page-locked with cudaHostRegister whose memory was freed or unmapped before their cudaHostUnregister",
	"write_combined_copies":      "copies of device memory to the host into write-combined pinned memory, which the host reads uncached",
	"kernel_host_launches":       "kernel launches given a pointer into page-locked host memory (zero-copy: each access crosses the bus)",
	"vmm_maps_released_handles":  "cuMemMap calls given a physical handle already released with cuMemRelease (and not retained again)",
	"device0_async_bytes":        "bytes of the stream-ordered allocations whose memory is on device 0",
	"device1_async_bytes":        "bytes of the stream-ordered allocations whose memory is on device 1",
	"launches_off_device":        "kernel launches on a stream of another device than the current one (the Programming Guide says such a launch fails)",
	"copies_off_device":          "cudaMemcpyAsync and cudaMemcpy2DAsync calls of stream-ordered memory on a stream of another device than the current one",
	"graph_node_params_written":  "kernel node parameters that cudaGraphKernelNodeGetParams returned (the node's own memory) written by the program",
	"kernel_span_ms":             "milliseconds from the first kernel's start to the last one's end",
	"kernel_busy_ms":             "milliseconds of kernel time, added up over every kernel",
	"stream_kernel_ms_max":       "milliseconds of kernel time on the busiest stream",
	"kernel_overlap_ms":          "milliseconds during which kernels of two streams or more ran at once",
	"kernel_concurrency":         "kernels running at once on average (kernel time over the span)",
	"malloc_host_calls":          "pinned host allocations (cudaMallocHost, cudaHostAlloc)",
	"free_host_calls":            "calls of cudaFreeHost",
	"host_alloc_calls":           "calls of cudaHostAlloc",
	"host_leaked_allocs":         "pinned host allocations never freed",
	"host_leaked_bytes":          "bytes of pinned host memory never freed",
	"vmm_address_free_calls":     "calls of cuMemAddressFree",
	"vmm_address_free_bytes":     "bytes of address ranges freed with cuMemAddressFree",
	"vmm_free_while_mapped":      "address ranges freed (cuMemAddressFree) while still mapped",
	"vmm_failed_calls":           "virtual memory calls that failed",
	"graph_launches":             "calls of cudaGraphLaunch",
	"graph_kernel_nodes":         "kernel nodes of the graphs launched",
	"graphs_timed":               "graph launches timed on the GPU",
	"forks":                      "child processes forked",
	"execs":                      "programs started by exec, posix_spawn, system or popen (not followed)",
	"uses_after_free":            "pointers into freed memory given to kernels, copies and memsets queued after the free",
	"events_created":             "events made (cudaEventCreate, cudaEventCreateWithFlags)",
	"events_destroyed":           "events destroyed (cudaEventDestroy)",
	"leaked_events":              "events never destroyed",
	"pool_imports":               "pointers imported from another process's pool",
	"pool_import_bytes":          "bytes of the allocations imported from another process's pool",
	"pool_import_frees":          "frees of pointers imported from another process's pool",
	"leaked_pool_imports":        "pointers imported from another process's pool and never freed",
	"graph_allocs":               "allocations made by the graphs' allocation nodes, at each launch",
	"graph_alloc_bytes":          "bytes allocated by the graphs' allocation nodes, at each launch",
	"unknown_frees":              "frees of memory that no call the library follows allocated",
	"host_polls":                 "queries of a stream or an event asked again after it answered not ready (polling)",
	"poll_waits":                 "polls of a stream or an event that ended in completion (host waits)",
	"host_waits":                 "host waits of every kind: synchronisations of the device, a stream or an event, and polls that ended (device_syncs + stream_syncs + event_syncs + poll_waits)",
	"unwaited_results":           "device results copied to the host before the host waited for every stream that wrote them",
	"pool_settings_unused":       "pool settings made on a pool no allocation came from (an attribute written, a trim)",
	"graph_relaunch_frees":       "graph allocations freed by the next launch of their graph",
	"vmm_unmap_bytes":            "bytes of the mappings undone with cuMemUnmap",
	"vmm_unmaps_unwaited":        "cuMemUnmap calls made before the host waited for the work queued on the streams",
	"device_pool_sets":           "changes of the device's current pool (cudaDeviceSetMemPool)",
	"device_pool_gets":           "calls of cudaDeviceGetMemPool",
	"set_pool_allocs":            "cudaMallocAsync calls on a device whose current pool the program set",
	"pool_peer_grants":           "devices given access to a pool on another device (cudaMemPoolSetAccess)",
	"peer_access_enables":        "calls of cudaDeviceEnablePeerAccess (which does not reach pools)",
	"cross_device_allocs":        "stream-ordered allocations from a pool on another device than the stream's",
	"device0_async_allocs":       "stream-ordered allocations whose memory is on device 0",
	"device1_async_allocs":       "stream-ordered allocations whose memory is on device 1",
	"peer_copies":                "copies between the memory of two devices",
	"peer_copy_bytes":            "bytes copied between the memory of two devices",
	"devices_used":               "distinct devices the program's streams and allocations were on",
	"injected_failures":          "calls a hidden run's spec made fail (fail = [\"name:N\"]) instead of making them, or answered (a device without pools)",
	"device_faults":              "calls that returned the error of a kernel that faulted (illegal address, launch failure): the context is lost",
	"import_frees_unsignalled":   "stream-ordered frees of memory imported from another process's pool that no later record of an interprocess event covers",
	"graph_execs_made":           "executable graphs made (cudaGraphInstantiate and its kin)",
	"ipc_made_destroy_first_ns":  "when this process first destroyed an interprocess event it made while a process that opened its handle still had it open (CLOCK_MONOTONIC, ns; 0: never)",
	"ipc_opened_close_last_ns":   "when this process last closed an interprocess event it opened from another's handle, or exited with one open (CLOCK_MONOTONIC, ns)",
	"ipc_events_destroyed_open":  "1 when an interprocess event was destroyed by the process that made it before a process that opened it had closed its handle (all.ipc_events_destroyed_open: the program's events and its children's handles)",
	"reuse_attr_gets":            "reuse policies asked of a pool (cudaMemPoolGetAttribute of cudaMemPoolReuse*)",
	"copies_past_end":            "copies and memsets that run past the end of the buffer they start in",
	"shareable_fds_open":         "file descriptors of exported or imported shareable handles (pools, allocations) never closed",
	"vmm_maps_past_reservation":  "cuMemMap calls that run past the end of the addresses reserved for them (cuMemAddressReserve)",
	"export_frees_early":         "frees of a block exported to another process that were not ordered after a wait, on an interprocess event, queued after that process's free of its import was recorded",
	"stale_ipc_waits":            "waits on another process's interprocess event, after an import, that could take only a record made before the block's writes (the exporter sent the block before recording the event after them)",
	"unpinned_async_copies":      "cudaMemcpyAsync to or from host memory that is not pinned (in no cudaMallocHost, cudaHostAlloc or cudaHostRegister range)",
	"graph_execs_leaked":         "executable graphs never destroyed (cudaGraphExecDestroy): cudaGraphDestroy destroys the graph, not what was made from it",
	"trims_unwaited":             "trims (cudaMemPoolTrimTo, cudaDeviceGraphMemTrim) made before the host waited for a queued free (or, for graph memory, a queued graph launch) whose memory the trim would give back",
}

// scoped is the record a statistic's name reads (the program's own
// process, its children's merged, or all of them merged; r.Stats is not
// nil) and the name without its scope.
func (r *Run) scoped(stat string) (*Stats, string) {
	scope, name := splitScope(stat)
	switch scope {
	case ScopeChildren:
		if r.Children == nil {
			return &Stats{}, name
		}
		return r.Children, name
	case ScopeAll:
		if name == "ipc_events_destroyed_open" {
			// The program's events, opened by its children: the one
			// order the program decides (a child's own event, shared with
			// the parent, goes when the child's handles do).
			own, kids := Stats{}, Stats{}
			if r.Stats != nil {
				own = *r.Stats
			}
			if r.Children != nil {
				kids = *r.Children
			}
			return &Stats{IPCMadeDestroyFirstNs: own.IPCMadeDestroyFirstNs, IPCOpenedCloseLastNs: kids.IPCOpenedCloseLastNs}, name
		}
		return MergeStats(r.Stats, r.Children), name
	}
	return r.Stats, name
}

func describe(stat string) string {
	switch scope, name := splitScope(stat); scope {
	case ScopeChildren:
		return describe(name) + ", in the child processes the program forked"
	case ScopeAll:
		return describe(name) + ", in the program and the child processes it forked"
	}
	if p, ok := phrases[stat]; ok {
		return p
	}
	return strings.ReplaceAll(stat, "_", " ")
}

func sayValue(stat string, v float64) string {
	if strings.HasSuffix(stat, "_calls") && strings.HasPrefix(describe(stat), "calls of ") {
		return fmt.Sprintf("%s was called %s times", strings.TrimPrefix(describe(stat), "calls of "), num(v))
	}
	return fmt.Sprintf("%s: %s", describe(stat), num(v))
}
