// Package checker judges a run of an exercise: its output, its exit status
// and what it did with the CUDA allocator, against the exercise's spec.
// It is a library: a course author's own tool can load a spec and judge a
// recorded run without the lessons command.
package checker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unsafe"
)

// Pool is one memory pool's attributes at the program's exit.
type Pool struct {
	Handle                                                         uint64
	UsedCurrent, UsedHigh, ReservedCurrent, ReservedHigh, Released uint64
}

// Stats is the record kernels/allocstats.cu keeps for a run, field for
// field in the order of its struct Record.
type Stats struct {
	Magic, Version                                     uint64
	MallocCalls, MallocBytes, FreeCalls                uint64 `stat:"malloc_calls,malloc_bytes,free_calls"`
	MallocAsyncCalls, MallocAsyncBytes, FreeAsyncCalls uint64 `stat:"malloc_async_calls,malloc_async_bytes,free_async_calls"`
	MallocFromPoolCalls, MallocFromPoolBytes           uint64 `stat:"malloc_from_pool_calls,malloc_from_pool_bytes"`
	MallocManagedCalls, MallocManagedBytes             uint64 `stat:"malloc_managed_calls,malloc_managed_bytes"`
	MallocHostCalls, MallocHostBytes, FreeHostCalls    uint64 `stat:"malloc_host_calls,malloc_host_bytes,free_host_calls"`
	LiveAllocs, LiveBytes, PeakLiveBytes               uint64 `stat:"live_allocs,live_bytes,peak_live_bytes"`
	FailedAllocs                                       uint64 `stat:"failed_allocs"`
	AsyncStreams                                       uint64 `stat:"async_streams"`
	FreeOtherStream                                    uint64 `stat:"free_other_stream"`
	PoolsCreated, PoolAttrSets, ReleaseThresholdSets   uint64 `stat:"pools_created,pool_attr_sets,release_threshold_sets"`
	ReleaseThreshold, ReuseAttrSets, PoolTrims         uint64 `stat:"release_threshold,reuse_attr_sets,pool_trims"`
	DeviceSyncs, StreamSyncs, EventSyncs               uint64 `stat:"device_syncs,stream_syncs,event_syncs"`
	EventRecords, StreamWaitEvents                     uint64 `stat:"event_records,stream_wait_events"`
	KernelLaunches                                     uint64 `stat:"kernel_launches"`
	VMMReserveCalls, VMMReserveBytes                   uint64 `stat:"vmm_reserve_calls,vmm_reserve_bytes"`
	VMMCreateCalls, VMMCreateBytes                     uint64 `stat:"vmm_create_calls,vmm_create_bytes"`
	VMMMapCalls, VMMMapBytes, VMMSetAccessCalls        uint64 `stat:"vmm_map_calls,vmm_map_bytes,vmm_set_access_calls"`
	VMMUnmapCalls, VMMReleaseCalls                     uint64 `stat:"vmm_unmap_calls,vmm_release_calls"`
	Exited                                             uint64 `stat:"exited"`
	LeakedAllocs, LeakedBytes                          uint64 `stat:"leaked_allocs,leaked_bytes"`
	PoolCount                                          uint64
	Pools                                              [8]Pool
	// Version 2: stream-ordering races, found by following kernel launches'
	// pointer parameters, cudaMemcpyAsync and cudaMemsetAsync.
	UnorderedUses, UnorderedFrees uint64 `stat:"unordered_uses,unordered_frees"`
	LaunchesInspected, BufferUses uint64 `stat:"launches_inspected,buffer_uses"`
	UseRace, FreeRace             [192]byte
	// Version 3: what tells a program that does the work from one that
	// only prints it, or waits where it must not.
	SyncMemsets, SyncMemcpys                  uint64 `stat:"sync_memsets,sync_memcpys"`
	WaitsBetweenAsyncAllocs, AsyncStreamSyncs uint64 `stat:"waits_between_async_allocs,async_stream_syncs"`
	DefaultStreamOps                          uint64 `stat:"default_stream_ops"`
	KernelAllocsUsed, KernelAddressesUsed     uint64 `stat:"kernel_allocs_used,kernel_addresses_used"`
	EventPairs                                uint64 `stat:"event_pairs"`
	// Version 4: kernels timed on the GPU by the library's own events
	// around each launch (not in a stream capture). The times are in
	// nanoseconds here; specs read them in milliseconds (Value).
	KernelsTimed, MaxConcurrentStreams uint64 `stat:"kernels_timed,max_concurrent_streams"`
	KernelSpanNs, KernelBusyNs         uint64
	StreamKernelNsMax, KernelOverlapNs uint64
	// Version 5: pinned host memory by any call, address ranges freed,
	// graphs launched (timed as one span on their stream each, in the
	// kernel figures above), and the process's fork() calls (each child
	// sends a record of its own: Channel, MergeStats).
	HostAllocCalls                      uint64 `stat:"host_alloc_calls"`
	HostLeakedAllocs, HostLeakedBytes   uint64 `stat:"host_leaked_allocs,host_leaked_bytes"`
	VMMAddressFreeCalls, VMMAddressFree uint64 `stat:"vmm_address_free_calls,vmm_address_free_bytes"`
	VMMFreeWhileMapped, VMMFailedCalls  uint64 `stat:"vmm_free_while_mapped,vmm_failed_calls"`
	GraphLaunches, GraphKernelNodes     uint64 `stat:"graph_launches,graph_kernel_nodes"`
	GraphsTimed                         uint64 `stat:"graphs_timed"`
	Forks                               uint64 `stat:"forks"`
	Execs                               uint64 `stat:"execs"`
	// Version 6: memory used after it was freed (in host order, and not
	// allocated again since), and the events the program made and
	// destroyed (the library's own timing events are not counted).
	UsesAfterFree                  uint64 `stat:"uses_after_free"`
	EventsCreated, EventsDestroyed uint64 `stat:"events_created,events_destroyed"`
	LeakedEvents                   uint64 `stat:"leaked_events"`
	AfterFreeUse                   [192]byte
	// Version 7: memory that comes by other calls than an allocation's
	// (a pointer imported from another process's pool; a graph's
	// allocation nodes, at each launch), and frees of memory no hooked
	// call allocated. Pitched allocations (cudaMallocPitch, cudaMalloc3D)
	// count in malloc_calls from this version on.
	PoolImports, PoolImportBytes       uint64 `stat:"pool_imports,pool_import_bytes"`
	PoolImportFrees, LeakedPoolImports uint64 `stat:"pool_import_frees,leaked_pool_imports"`
	GraphAllocs, GraphAllocBytes       uint64 `stat:"graph_allocs,graph_alloc_bytes"`
	UnknownFrees                       uint64 `stat:"unknown_frees"`
	// Version 8: mistakes of a kind, in any program: the host polling a
	// stream or an event (a query asked again after "not ready" with no
	// work queued in between; a poll that ends is a host wait,
	// poll_waits), device results copied to the host before a wait covered every
	// stream that wrote them (a cudaMemcpy after a non-blocking stream's
	// kernel, an async copy to the host not waited for by exit), pool
	// settings made on a pool no allocation came from, a graph's
	// allocations freed by its next launch, the bytes of the mappings
	// cuMemUnmap undid (one call may undo several), unmaps made while
	// queued work was not waited for, and changes of the device's current
	// pool (cudaDeviceSetMemPool: every library's pool). From this version races are
	// followed on all device memory by address range (unordered_uses).
	HostPolls, PollWaits                   uint64 `stat:"host_polls,poll_waits"`
	UnwaitedResults                        uint64 `stat:"unwaited_results"`
	PoolSettingsUnused, GraphRelaunchFrees uint64 `stat:"pool_settings_unused,graph_relaunch_frees"`
	VMMUnmapBytes, VMMUnmapsUnwaited       uint64 `stat:"vmm_unmap_bytes,vmm_unmaps_unwaited"`
	DevicePoolSets                         uint64 `stat:"device_pool_sets"`
	ResultRace                             [192]byte
	// Version 9: several devices. Each thing's device is learnt from the
	// calls (cudaSetDevice, the device current when a stream was made, a
	// pool's location or the device it was asked of), never asked of CUDA.
	DevicePoolGets                         uint64 `stat:"device_pool_gets"`
	SetPoolAllocs                          uint64 `stat:"set_pool_allocs"`
	PoolPeerGrants, PeerAccessEnables      uint64 `stat:"pool_peer_grants,peer_access_enables"`
	CrossDeviceAllocs                      uint64 `stat:"cross_device_allocs"`
	Device0AsyncAllocs, Device1AsyncAllocs uint64 `stat:"device0_async_allocs,device1_async_allocs"`
	PeerCopies, PeerCopyBytes              uint64 `stat:"peer_copies,peer_copy_bytes"`
	DevicesUsed                            uint64 `stat:"devices_used"`
	// Version 10: error paths a hidden run opens (the calls its spec
	// names fail, fail = [...]) and kernels that faulted, seen in the
	// error every later call returns; frees of memory imported from
	// another process's pool that no later record of an interprocess
	// event covers (the exporter cannot be told they are done); trims
	// (cudaMemPoolTrimTo, cudaDeviceGraphMemTrim) made before the host
	// waited for the queued work, which keeps what it still holds.
	InjectedFailures, DeviceFaults uint64 `stat:"injected_failures,device_faults"`
	ImportFreesUnsignalled         uint64 `stat:"import_frees_unsignalled"`
	TrimsUnwaited                  uint64 `stat:"trims_unwaited"`
	// Version 11: executable graphs made, and those never destroyed (a
	// graph's executable outlives cudaGraphDestroy of the graph it was
	// made from, with what it holds); reuse policies asked of a pool.
	GraphExecsMade, GraphExecsLeaked uint64 `stat:"graph_execs_made,graph_execs_leaked"`
	ReuseAttrGets                    uint64 `stat:"reuse_attr_gets"`
	// When (CLOCK_MONOTONIC, shared by the machine's processes) this
	// process first destroyed an interprocess event it made while a
	// process that opened that event's handle still had it open (matched
	// by the handle's bytes, since the library of session 16; before, its
	// first destroy of any interprocess event it made; since session 18,
	// also one opened only after that destroy, seen at the maker's exit
	// against the run's opens), and last
	// closed one it opened from another's handle (or exited with one
	// open): read together over the processes of a run as
	// ipc_events_destroyed_open.
	IPCMadeDestroyFirstNs, IPCOpenedCloseLastNs uint64 `stat:"ipc_made_destroy_first_ns,ipc_opened_close_last_ns"`
	// Version 12: copies and memsets (cudaMemcpy, cudaMemset and their
	// Async forms) whose bytes run past the end of the allocation, on the
	// device or pinned on the host, that they start in: a buffer sized for
	// fewer elements than are copied into or out of it.
	CopiesPastEnd uint64 `stat:"copies_past_end"`
	// Asynchronous copies to or from the host (cudaMemcpyAsync of kind
	// host to device or device to host) whose host side is in no pinned
	// allocation (cudaMallocHost, cudaHostAlloc) and no registered range
	// (cudaHostRegister): pageable memory, which the driver stages (the
	// copy does not overlap other work), or memory past the end of a
	// pinned buffer sized too small.
	UnpinnedAsyncCopies uint64 `stat:"unpinned_async_copies"`
	// Version 13: POSIX file descriptors of shareable handles that the
	// program held (from cudaMemPoolExportToShareableHandle,
	// cuMemPoolExportToShareableHandle or cuMemExportToShareableHandle, or
	// given to one of their imports) and never closed: still open, on the
	// same file, at exit.
	ShareableFDsOpen uint64 `stat:"shareable_fds_open"`
	// Version 14: frees by the exporting process of a block another
	// process imported (cudaMemPoolExportPointer there,
	// cudaMemPoolImportPointer here) that were not ordered after a wait,
	// on an interprocess event, queued after that process's record
	// covering its free of the import: the exporter's free may run while
	// the importer still uses the block. Matched by the export data across
	// the processes the library follows by fork.
	ExportFreesEarly uint64 `stat:"export_frees_early"`
	// Version 15: the bytes of the largest allocation a kernel was passed
	// a pointer into (its size as asked for): one arena carved for many
	// users shows as one allocation as large as all of them, however
	// many other allocations the kernels see.
	KernelAllocBytesMax uint64 `stat:"kernel_alloc_bytes_max"`
	// Version 15 too: cuMemMap calls whose range starts in an address range
	// the program reserved (cuMemAddressReserve, not freed since) and runs
	// past the end of the reserved addresses from there (ranges side by
	// side count as one): memory mapped at addresses nothing reserved for
	// it, which the driver may refuse, or give to another reservation.
	// Counted when asked, whatever the driver answered.
	VMMMapsPastReservation uint64 `stat:"vmm_maps_past_reservation"`
	// Version 16: waits on an interprocess event opened from another
	// process's handle (a stream's cudaStreamWaitEvent, or the host's
	// cudaEventSynchronize or a cudaEventQuery that answered done), queued
	// after an import (cudaMemPoolImportPointer), when the exporting
	// process sent that block's export data before a record of the event
	// was ordered after the block's writes (and its host had not waited
	// for them): the wait may take an older record, so what follows it
	// may read the block before it is written. Matched by the export data
	// and the event's handle across the processes the library follows by
	// fork; exact, as it follows from each process's order of calls and
	// from the data's travel alone.
	StaleIPCWaits uint64 `stat:"stale_ipc_waits"`
	// Version 16 too: the most streams whose queued work (kernels, copies,
	// memsets) the program's own ordering left free to run at once: at
	// each such operation, its stream and every other stream whose last
	// one it is not ordered after, by the events its stream waited for or
	// a host wait. Timing plays no part: 1 means every operation follows
	// every other stream's last one (stages that each wait for the whole
	// of the work before them), however many streams the program uses.
	MaxUnorderedStreams uint64 `stat:"max_unordered_streams"`
	// Version 17: ranges page-locked with cudaHostRegister whose memory
	// was no longer mapped (freed, or unmapped by the program) at their
	// cudaHostUnregister, or at exit with no unregister: host memory
	// given back while the driver still held it page-locked. A large
	// malloc or calloc is a mapping of its own that free unmaps; a small
	// buffer the C library keeps after its free stays mapped and is not
	// seen.
	RegisteredUnmapped uint64 `stat:"registered_unmapped"`
	// Version 18: copies of device memory to the host (cudaMemcpy,
	// cudaMemcpyAsync, cudaMemcpy2DAsync) whose destination lies in
	// pinned memory allocated write-combined (cudaHostAlloc with
	// cudaHostAllocWriteCombined, cuMemHostAlloc with
	// CU_MEMHOSTALLOC_WRITECOMBINED): results brought back where the host
	// reads them uncached. Kernels that write such memory through a
	// mapping are not copies and are not counted.
	WriteCombinedCopies uint64 `stat:"write_combined_copies"`
	// Version 19: kernel launches passed a pointer into page-locked host
	// memory (cudaMallocHost, cudaHostAlloc, cuMemHostAlloc or a range
	// pinned with cudaHostRegister; under unified addressing a mapped
	// allocation's device pointer is its host address): zero-copy, each
	// access the kernel makes to it crosses the bus. Launches of graphs
	// are not looked at.
	KernelHostLaunches uint64 `stat:"kernel_host_launches"`
	// Version 19 too: cuMemMap calls given a physical handle the program
	// had already released (cuMemRelease) and not retained again
	// (cuMemRetainAllocationHandle), whatever the driver answered: after
	// its release a handle is no longer the program's to map.
	VMMMapsReleasedHandles uint64 `stat:"vmm_maps_released_handles"`
	// Version 20: the bytes of the stream-ordered allocations whose
	// memory is on device 0 and on device 1 (cudaMallocAsync from the
	// stream's device's current pool, cudaMallocFromPoolAsync from the
	// pool's device), whichever call made them: what lies on each device,
	// where the bytes asked of one call (malloc_from_pool_bytes) pin one
	// design.
	Device0AsyncBytes, Device1AsyncBytes uint64 `stat:"device0_async_bytes,device1_async_bytes"`
	// Version 20 too: kernel launches that went through on a stream of
	// another device than the launching thread's current one (cudaSetDevice;
	// a context made current with the driver API is not followed). The
	// Programming Guide says such a launch fails; CUDA 13's runtime ran
	// one on the stream's device.
	LaunchesOffDevice uint64 `stat:"launches_off_device"`
	// Version 20 too: cudaMemcpyAsync and cudaMemcpy2DAsync calls that
	// went through on a stream of another device than the thread's current
	// one, with stream-ordered memory on either side: the Programming
	// Guide asks for the stream's device to be current for such a copy
	// (cudaMemcpyPeerAsync, which names its devices, is exempt).
	CopiesOffDevice uint64 `stat:"copies_off_device"`
	// Version 20 too: kernel node parameters handed out by
	// cudaGraphKernelNodeGetParams (the node's own array and argument
	// bytes, which the runtime reference says must not be modified) that
	// the program wrote, found at the next call naming the node or at a
	// graph launch: the library hands out a copy of its own and compares.
	GraphNodeParamsWritten uint64 `stat:"graph_node_params_written"`
	// Version 21: cuMemRetainAllocationHandle calls that succeeded. Each
	// takes a reference to the physical memory mapped at an address, which
	// a cuMemRelease of its own gives back (as a cuMemCreate's handle is):
	// vmm_handle_refs adds them to vmm_create_calls. Since round 25 the
	// cuMemImportFromShareableHandle calls that succeeded too: an import
	// is a handle of its own, a reference as a retain's is (a chunk kept
	// by the import of its own exported handle, released alone, balanced
	// the releases with the creates and kept the memory to the end).
	VMMRetainCalls uint64 `stat:"vmm_retain_calls"`
	// Version 21 too: the references to physical memory (a cuMemCreate's
	// handle, one more for each retain) that no cuMemRelease that
	// succeeded gave back by the program's exit: each handle's own count,
	// which a release of another handle twice, or a release the driver
	// refused, does not lower (vmm_release_calls against vmm_handle_refs
	// counts calls).
	VMMRefsUnreleased uint64 `stat:"vmm_refs_unreleased"`
	// Version 22: cuMemRetainAllocationHandle and
	// cuMemImportFromShareableHandle calls, made or made to fail, as the
	// seven other VMM functions' vmm_*_calls count theirs. The outside
	// witness probes the driver's two and bounds its count of them by
	// this (round 25: references taken at the driver's own entries,
	// around the hooks, kept a chunk allocated while the record
	// balanced); vmm_retain_calls, the successes, cannot bound a count of
	// calls, as an honest retain that fails takes no reference.
	VMMRetainAttempts uint64 `stat:"vmm_retain_attempts"`
	// Version 23: the most streams whose uses of one allocation
	// (kernels, copies, memsets; each at its own addresses, or the same
	// ones, which unordered_uses counts as a race on stream-ordered
	// memory) the program's own ordering left free to run at once: at
	// each use, its stream and every other stream with a use of the
	// allocation it is not ordered after. No timing: two streams that
	// each read half of one input score 2 when neither waited for the
	// other before its read, 1 when one did.
	MaxUnorderedUsers uint64 `stat:"max_unordered_users"`
}

const (
	statsMagic   = 0x5354415453534c4c
	statsVersion = 23
)

// v1Size is the size of a version 1 record: everything before the race
// figures. Records of version 1 (fixtures of earlier runs) still decode,
// with those figures 0. (Stats holds only uint64s and byte arrays after
// them, so Go lays it out without padding, as the record is.)
var v1Size = int(unsafe.Offsetof(Stats{}.UnorderedUses))

// v2Size is the size of a version 2 record: everything before the
// figures of version 3, which decode as 0 from older records.
var v2Size = int(unsafe.Offsetof(Stats{}.SyncMemsets))

// v3Size is the size of a version 3 record: everything before the
// kernels' times.
var v3Size = int(unsafe.Offsetof(Stats{}.KernelsTimed))

// v4Size is the size of a version 4 record: everything before the
// figures of version 5.
var v4Size = int(unsafe.Offsetof(Stats{}.HostAllocCalls))

// v5Size is the size of a version 5 record: everything before the
// figures of version 6.
var v5Size = int(unsafe.Offsetof(Stats{}.UsesAfterFree))

// v6Size is the size of a version 6 record: everything before the
// figures of version 7.
var v6Size = int(unsafe.Offsetof(Stats{}.PoolImports))

// v7Size is the size of a version 7 record: everything before the
// figures of version 8.
var v7Size = int(unsafe.Offsetof(Stats{}.HostPolls))

// v8Size is the size of a version 8 record: everything before the
// figures of version 9.
var v8Size = int(unsafe.Offsetof(Stats{}.DevicePoolGets))

// v9Size is the size of a version 9 record: everything before the
// figures of version 10.
var v9Size = int(unsafe.Offsetof(Stats{}.InjectedFailures))

// v10Size is the size of a version 10 record: everything before the
// figures of version 11.
var v10Size = int(unsafe.Offsetof(Stats{}.GraphExecsMade))

// v11Size is the size of a version 11 record: everything before the
// figures of version 12.
var v11Size = int(unsafe.Offsetof(Stats{}.CopiesPastEnd))

// v12Size is the size of a version 12 record: everything before the
// figures of version 13.
var v12Size = int(unsafe.Offsetof(Stats{}.ShareableFDsOpen))

// v13Size is the size of a version 13 record: everything before the
// figures of version 14.
var v13Size = int(unsafe.Offsetof(Stats{}.ExportFreesEarly))

// v14Size is the size of a version 14 record: everything before the
// figures of version 15.
var v14Size = int(unsafe.Offsetof(Stats{}.KernelAllocBytesMax))

// v15Size is the size of a version 15 record: everything before the
// figures of version 16.
var v15Size = int(unsafe.Offsetof(Stats{}.StaleIPCWaits))

// v16Size is the size of a version 16 record: everything before the
// figures of version 17.
var v16Size = int(unsafe.Offsetof(Stats{}.RegisteredUnmapped))

// v17Size is the size of a version 17 record: everything before the
// figures of version 18.
var v17Size = int(unsafe.Offsetof(Stats{}.WriteCombinedCopies))

// v18Size is the size of a version 18 record: everything before the
// figures of version 19.
var v18Size = int(unsafe.Offsetof(Stats{}.KernelHostLaunches))

// v19Size is the size of a version 19 record: everything before the
// figures of version 20.
var v19Size = int(unsafe.Offsetof(Stats{}.Device0AsyncBytes))

// v20Size is the size of a version 20 record: everything before the
// figures of version 21.
var v20Size = int(unsafe.Offsetof(Stats{}.VMMRetainCalls))

// v21Size is the size of a version 21 record: everything before the
// figures of version 22.
var v21Size = int(unsafe.Offsetof(Stats{}.VMMRetainAttempts))

// v22Size is the size of a version 22 record: everything before the
// figures of version 23.
var v22Size = int(unsafe.Offsetof(Stats{}.MaxUnorderedUsers))

// versionSizes are the sizes of the records of every version before
// statsVersion, version 1 first: a statistic came in the first version
// whose size is past its offset (the statistics reference says which).
var versionSizes = []int{v1Size, v2Size, v3Size, v4Size, v5Size, v6Size, v7Size, v8Size, v9Size, v10Size, v11Size, v12Size, v13Size, v14Size, v15Size, v16Size, v17Size, v18Size, v19Size, v20Size, v21Size, v22Size}

// RaceNote is, in words, the first race the library saw of the kind a
// statistic counts (unordered_uses, unordered_frees, uses_after_free or
// unwaited_results), or "".
func (s *Stats) RaceNote(stat string) string {
	var b []byte
	switch stat {
	case "unordered_uses":
		b = s.UseRace[:]
	case "unordered_frees":
		b = s.FreeRace[:]
	case "uses_after_free":
		b = s.AfterFreeUse[:]
	case "unwaited_results":
		b = s.ResultRace[:]
	}
	if n := bytes.IndexByte(b, 0); n >= 0 {
		b = b[:n]
	}
	return string(b)
}

// DecodeStats decodes a record.
func DecodeStats(data []byte) (*Stats, error) {
	var s Stats
	if len(data) < 16 {
		return nil, errors.New("the statistics record is short: the program did not call CUDA, or was not built with -cudart shared")
	}
	magic, version := binary.LittleEndian.Uint64(data), binary.LittleEndian.Uint64(data[8:])
	if magic != statsMagic || version < 1 || version > statsVersion {
		return nil, fmt.Errorf("the statistics record is not one this version reads (magic %#x, version %d)", magic, version)
	}
	// A record of an older version is that version's size: the figures
	// it does not have read as 0.
	need := binary.Size(s)
	if version < statsVersion {
		need = versionSizes[version-1]
	}
	if len(data) < need {
		return nil, errors.New("the statistics record is short: the program did not call CUDA, or was not built with -cudart shared")
	}
	full := make([]byte, binary.Size(s))
	copy(full, data[:need])
	if err := binary.Read(bytes.NewReader(full), binary.LittleEndian, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Value returns a statistic by name, and whether the name exists. Besides
// the record's own fields there are pool figures, taken at exit over every
// pool the program used: pool_used_high, pool_reserved_high (the largest),
// pool_used_current and pool_reserved_current (summed), and
// pools_destroyed (the library clears a pool's handle when the program
// destroys it); host_waits, the host's waits of every kind added up;
// vmm_handle_refs, cuMemCreate's and cuMemRetainAllocationHandle's
// references to physical memory added up; and
// the kernels' times in milliseconds (timeStats).
func (s *Stats) Value(name string) (float64, bool) {
	switch name {
	case "pool_used_high", "pool_reserved_high", "pool_used_current", "pool_reserved_current":
		var v uint64
		for _, p := range s.Pools[:min(int(s.PoolCount), len(s.Pools))] {
			switch name {
			case "pool_used_high":
				v = max(v, p.UsedHigh)
			case "pool_reserved_high":
				v = max(v, p.ReservedHigh)
			case "pool_used_current":
				v += p.UsedCurrent
			case "pool_reserved_current":
				v += p.ReservedCurrent
			}
		}
		return float64(v), true
	}
	if name == "pools_destroyed" {
		n := 0
		for _, p := range s.Pools[:min(int(s.PoolCount), len(s.Pools))] {
			if p.Handle == 0 {
				n++
			}
		}
		return float64(n), true
	}
	if f, ok := timeStats[name]; ok {
		return float64(f(s)) / 1e6, true
	}
	if name == "ipc_events_destroyed_open" {
		// 1 when a maker destroyed an interprocess event before a process
		// that opened one closed it: read in the scope all., where the
		// run's processes are taken together.
		if s.IPCMadeDestroyFirstNs != 0 && s.IPCOpenedCloseLastNs > s.IPCMadeDestroyFirstNs {
			return 1, true
		}
		return 0, true
	}
	if name == "vmm_handle_refs" {
		// The references to physical memory the program took: a handle
		// from each cuMemCreate, and one from each
		// cuMemRetainAllocationHandle or cuMemImportFromShareableHandle
		// that succeeded. Each wants a
		// cuMemRelease of its own: a spec asks vmm_release_calls to
		// equal this, whether a design keeps its handles or releases each
		// after its map and retains it again when it maps it once more.
		return float64(s.VMMCreateCalls + s.VMMRetainCalls), true
	}
	if name == "host_waits" {
		// Every wait of the host for the GPU, whatever the call: a
		// design may wait for a stream, for an event recorded on it, or
		// for the device, and a spec bounds how often it waits at all.
		return float64(s.DeviceSyncs + s.StreamSyncs + s.EventSyncs + s.PollWaits), true
	}
	if name == "kernel_concurrency" {
		// How many kernels ran at once on average over the span: 1 when
		// they ran one after another, near the streams' number when they
		// overlapped throughout.
		if s.KernelSpanNs == 0 {
			return 0, true
		}
		return float64(s.KernelBusyNs) / float64(s.KernelSpanNs), true
	}
	i, ok := statIndex()[name]
	if !ok {
		return 0, false
	}
	return float64(reflect.ValueOf(s).Elem().Field(i).Uint()), true
}

// timeStats are the kernels' times, in milliseconds from the record's
// nanoseconds: kernel_span_ms from the first timed kernel's start to the
// last one's end, kernel_busy_ms their times added up, stream_kernel_ms_max
// the largest such sum on one stream, kernel_overlap_ms the time during
// which kernels of two streams or more ran at once.
var timeStats = map[string]func(*Stats) uint64{
	"kernel_span_ms":       func(s *Stats) uint64 { return s.KernelSpanNs },
	"kernel_busy_ms":       func(s *Stats) uint64 { return s.KernelBusyNs },
	"stream_kernel_ms_max": func(s *Stats) uint64 { return s.StreamKernelNsMax },
	"kernel_overlap_ms":    func(s *Stats) uint64 { return s.KernelOverlapNs },
}

// StatNames lists every statistic a spec may name.
func StatNames() []string {
	var names []string
	for n := range statIndex() {
		names = append(names, n)
	}
	names = append(names, "pool_used_high", "pool_reserved_high", "pool_used_current", "pool_reserved_current", "pools_destroyed")
	for n := range timeStats {
		names = append(names, n)
	}
	names = append(names, "kernel_concurrency", "ipc_events_destroyed_open", "host_waits", "vmm_handle_refs")
	sort.Strings(names)
	return names
}

// statIndex maps a statistic's name to its field. Fields declared together
// share one tag (Go gives each the whole tag), which lists their names in
// order: the k-th field of the group takes the k-th name.
func statIndex() map[string]int {
	idx := map[string]int{}
	t := reflect.TypeOf(Stats{})
	prev, k := "", 0
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("stat")
		if tag == prev {
			k++
		} else {
			prev, k = tag, 0
		}
		if names := splitComma(tag); tag != "" && k < len(names) {
			idx[names[k]] = i
		}
	}
	return idx
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// Encode writes the record as the statistics library does; tests and
// fixtures use it.
func (s *Stats) Encode() []byte {
	c := *s
	c.Magic, c.Version = statsMagic, statsVersion
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, &c)
	return b.Bytes()
}

// Set sets a statistic of the record by name (not the pool figures).
func (s *Stats) Set(name string, v uint64) error {
	i, ok := statIndex()[name]
	if !ok {
		return fmt.Errorf("unknown statistic %q", name)
	}
	reflect.ValueOf(s).Elem().Field(i).SetUint(v)
	return nil
}

func reflectType() reflect.Type { return reflect.TypeOf(Stats{}) }

// mergeMax are the figures that are a most over the processes, not a sum:
// each process's kernels are timed on a clock of its own, so a span or an
// overlap across processes is not measured, only each process's.
var mergeMax = map[string]bool{
	"PeakLiveBytes": true, "MaxConcurrentStreams": true, "MaxUnorderedStreams": true, "MaxUnorderedUsers": true, "KernelSpanNs": true,
	"StreamKernelNsMax": true, "ReleaseThreshold": true,
	"IPCOpenedCloseLastNs": true,
}

// MergeStats is the record of two processes of one run taken together:
// counts, bytes and times added up; the peak of live bytes, the most
// streams running at once, the span, the busiest stream and the release
// threshold the larger of the two; exited only when both did; the pools
// of both (up to the record's eight); the first race of a (else b's).
// Either may be nil.
func MergeStats(a, b *Stats) *Stats {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		c := *b
		return &c
	case b == nil:
		c := *a
		return &c
	}
	m := *a
	mv, bv := reflect.ValueOf(&m).Elem(), reflect.ValueOf(b).Elem()
	t := mv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Uint64 {
			continue
		}
		x, y := mv.Field(i).Uint(), bv.Field(i).Uint()
		switch f.Name {
		case "Magic", "PoolCount":
		case "Version", "Exited":
			mv.Field(i).SetUint(min(x, y))
		case "IPCMadeDestroyFirstNs":
			// The first of the processes' first destroys: 0 is none.
			if x == 0 || (y != 0 && y < x) {
				mv.Field(i).SetUint(y)
			}
		default:
			if mergeMax[f.Name] {
				mv.Field(i).SetUint(max(x, y))
			} else {
				mv.Field(i).SetUint(x + y)
			}
		}
	}
	for _, p := range b.Pools[:min(int(b.PoolCount), len(b.Pools))] {
		if int(m.PoolCount) < len(m.Pools) {
			m.Pools[m.PoolCount] = p
			m.PoolCount++
		}
	}
	if m.UseRace[0] == 0 {
		m.UseRace = b.UseRace
	}
	if m.FreeRace[0] == 0 {
		m.FreeRace = b.FreeRace
	}
	if m.AfterFreeUse[0] == 0 {
		m.AfterFreeUse = b.AfterFreeUse
	}
	if m.ResultRace[0] == 0 {
		m.ResultRace = b.ResultRace
	}
	return &m
}

// Scopes of a statistic's name: "children.malloc_calls" reads the child
// processes the program forked, merged (MergeStats); "all.malloc_calls"
// the program and its children merged; a name without a scope the
// program's own process.
const (
	ScopeChildren = "children."
	ScopeAll      = "all."
)

// ReadsChildren says whether a check of the spec (of any run, hidden
// ones too) reads a statistic of the processes the program forks (a
// "children." or "all." scope): an exercise about several processes. A
// spec that reads none judges the program's own process alone, and a
// run whose children called CUDA did work there that no check sees.
func (s *Spec) ReadsChildren() bool {
	for _, c := range s.Checks {
		if scope, _ := splitScope(c.Stat); scope != "" {
			return true
		}
	}
	return false
}

// splitScope is a statistic's scope ("", ScopeChildren or ScopeAll) and
// its name without it.
func splitScope(name string) (scope, stat string) {
	for _, s := range []string{ScopeChildren, ScopeAll} {
		if len(name) > len(s) && name[:len(s)] == s {
			return s, name[len(s):]
		}
	}
	return "", name
}

// Measured says whether the statistic name (with or without a scope) is
// an amount in a unit a program may print larger (bytes, or the kernels'
// milliseconds), not a count: what a check's unit may go with.
func Measured(name string) bool {
	_, n := splitScope(name)
	if _, ok := timeStats[n]; ok {
		return true
	}
	switch n {
	case "pool_used_high", "pool_reserved_high", "pool_used_current", "pool_reserved_current", "release_threshold":
		return true
	}
	return strings.HasSuffix(n, "_bytes") || strings.Contains(n, "_bytes_")
}

// KnownStat says whether name is a statistic a spec may name, with or
// without a scope.
func KnownStat(name string) bool {
	_, n := splitScope(name)
	_, ok := (&Stats{}).Value(n)
	return ok
}
