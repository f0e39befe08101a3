package exercise

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/cudalessons/lessons/checker"
)

// witnessLogLine is one watched run, as LESSONS_WITNESS_LOG keeps it: what
// a measurement of the witness on a GPU reads (which counts equal the
// record's over a whole course, and which driver entry points the
// runtime's own calls reach).
type witnessLogLine struct {
	File string `json:"file,omitempty"`
	// Hash is the job's (a grade's: the file's, as the gradebook's
	// source_hash).
	Hash   string            `json:"hash"`
	Job    string            `json:"job"`
	Run    string            `json:"run"`
	Kernel map[string]uint64 `json:"kernel"`
	Record map[string]uint64 `json:"record"`
	// DriverAllocs and DriverFrees are the record's guard's claims of
	// the program's own driver calls.
	DriverAllocs uint64 `json:"driver_allocs"`
	DriverFrees  uint64 `json:"driver_frees"`
	// Compared says whether the witness's comparison was made, Equal
	// whether it passed, Got what it says.
	Compared    bool   `json:"compared"`
	Equal       bool   `json:"equal"`
	Got         string `json:"got,omitempty"`
	Unwitnessed string `json:"not_witnessed,omitempty"`
	// Past are the functions entered past their first instruction, with
	// the counts of each kind of their sites.
	Past []string `json:"past,omitempty"`
	// Sites are each count's calls at each kind of its sites: the
	// entries, the ways out of them, the functions behind them (the
	// driver's), the ways out of those. An honest call passes each
	// kind once; a kind with no site found counts 0.
	Sites map[string][4]uint64 `json:"sites,omitempty"`
	// Faults are the fault signals the run caught in handlers of its own.
	Faults uint64 `json:"faults,omitempty"`
	// Settled says the run had settled_queries (the library's own waits
	// before each query reach the stream's and the event's waits).
	Settled bool `json:"settled,omitempty"`
	// Stopped says the run was stopped or crashed: its record is the
	// last snapshot, compared one way (checker.WitnessView.Snapshot).
	Stopped bool `json:"stopped,omitempty"`
}

var witnessLogMu sync.Mutex

// logWitness adds the run's line to LESSONS_WITNESS_LOG, when it is set
// and the run was watched; a log that cannot be written is left
// unwritten (a measurement's, never the verdict's, loss).
func logWitness(j *Job, ww *witnessWatch, rec *checker.Received, results []checker.Result, unwitnessed string) {
	path := os.Getenv("LESSONS_WITNESS_LOG")
	if path == "" || ww == nil {
		return
	}
	l := witnessLogLine{Job: j.ID, Hash: j.Hash, Run: j.Spec.RunName(), Kernel: map[string]uint64{}, Record: map[string]uint64{}, Unwitnessed: unwitnessed}
	if len(j.Files) > 0 {
		l.File = j.Files[0].Path
	}
	maps.Copy(l.Kernel, ww.counts)
	l.Past, l.Sites, l.Faults, l.Settled, l.Stopped = ww.past, ww.sites, ww.faults, ww.settled, ww.stopped
	if rec != nil {
		// With the virtual memory statistics the witness bounds the
		// driver's nine functions by (vmmCalls): a measurement reads the
		// kernel's count of each beside the record's.
		for _, n := range append(append(driverTwinNames(), "pools_created", "malloc_bytes", "malloc_async_bytes", "malloc_from_pool_bytes", "malloc_managed_bytes", "malloc_host_bytes", "failed_allocs", "device_syncs", "stream_syncs", "event_syncs"), vmmStatNames()...) {
			var v float64
			if rec.Stats != nil {
				v, _ = rec.Stats.Value(n)
			}
			if rec.Children != nil {
				c, _ := rec.Children.Value(n)
				v += c
			}
			l.Record[n] = uint64(v)
		}
		for _, g := range append([]checker.Guard{rec.Guard}, rec.ChildGuards...) {
			l.DriverAllocs += g.DriverAllocCalls
			l.DriverFrees += g.DriverFreeCalls
		}
	}
	for _, r := range results {
		if strings.HasSuffix(r.Name, checker.WitnessCheckName) {
			l.Compared, l.Equal, l.Got = true, r.Pass, r.Got
		}
	}
	data, err := json.Marshal(l)
	if err != nil {
		return
	}
	witnessLogMu.Lock()
	defer witnessLogMu.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(append(data, '\n'))
}

// driverTwinNames are the record's statistics with driver twins, sorted.
func driverTwinNames() []string { return slices.Sorted(maps.Keys(driverTwins)) }

// vmmStatNames are the record's statistics that bound the driver's
// virtual memory functions (vmmCalls), in vmmCalls' order.
func vmmStatNames() []string {
	var out []string
	for _, c := range vmmCalls {
		out = append(out, c.stat)
	}
	return out
}
