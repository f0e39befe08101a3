package checker

// meanings says what the statistics without a phrase in a failed check's
// words count; StatMeaning takes the phrase where there is one.
var meanings = map[string]string{
	"exited":                 "1 once the program reached exit (the library's exit handler ran), else 0",
	"failed_allocs":          "allocation calls that returned an error",
	"live_allocs":            "allocations not yet freed at the end of the run",
	"live_bytes":             "bytes not yet freed at the end of the run",
	"malloc_bytes":           "bytes asked for with cudaMalloc (and cudaMallocPitch, cudaMalloc3D, cuMemAlloc; an array's elements: cudaMallocArray and its kin)",
	"malloc_async_bytes":     "bytes asked for with cudaMallocAsync",
	"malloc_from_pool_bytes": "bytes asked for with cudaMallocFromPoolAsync",
	"malloc_host_bytes":      "bytes of pinned host memory asked for (cudaMallocHost, cudaHostAlloc)",
	"malloc_managed_bytes":   "bytes asked for with cudaMallocManaged",
	"pool_attr_sets":         "calls of cudaMemPoolSetAttribute",
	"release_threshold":      "the last release threshold set on a pool, in bytes",
	"reuse_attr_sets":        "reuse flags set on a pool (cudaMemPoolReuseFollowEventDependencies, ReuseAllowOpportunistic, ReuseAllowInternalDependencies)",
	"vmm_create_bytes":       "bytes of physical memory made with cuMemCreate",
	"vmm_reserve_bytes":      "bytes of address range reserved with cuMemAddressReserve",
	"pool_used_current":      "bytes in use in the pools at exit (UsedMemCurrent, summed over the pools used)",
	"pool_reserved_current":  "bytes the pools held at exit (ReservedMemCurrent, summed over the pools used)",
	"pool_reserved_high":     "the pools' high watermark of reserved bytes (ReservedMemHigh, the largest)",
	"pools_destroyed":        "pools the program destroyed (cudaMemPoolDestroy) of the first 8 it used: a pool left at exit is not counted",
}

// StatMeaning says what a statistic counts and the version of the
// statistics record that first had it (older records read it as 0); ""
// and 0 for a name that is not a statistic.
func StatMeaning(name string) (string, int) {
	m, ok := phrases[name]
	if !ok {
		m = meanings[name]
	}
	if m == "" {
		return "", 0
	}
	return m, statVersion(name)
}

func statVersion(name string) int {
	if _, ok := timeStats[name]; ok || name == "kernel_concurrency" {
		return 4
	}
	if name == "ipc_events_destroyed_open" {
		return 11
	}
	if name == "host_waits" {
		return 8 // poll_waits came in version 8
	}
	if name == "vmm_handle_refs" {
		return 21 // vmm_retain_calls came in version 21
	}
	i, ok := statIndex()[name]
	if !ok {
		return 1 // the pools' figures, in the record since version 1
	}
	off := int(reflectType().Field(i).Offset)
	for v, size := range versionSizes {
		if off < size {
			return v + 1
		}
	}
	return statsVersion
}
