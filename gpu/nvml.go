package gpu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

// What NVML's header would declare, for the few calls made here: the
// library is loaded at run time, so no header is needed to build.
typedef int nvmlReturn_t;
typedef void* nvmlDevice_t;
// nvmlProcessInfo_t of _v2 and _v3 alike (nvml.h, CUDA 11.1 on).
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvml_proc;

static void* nvml;
static nvmlReturn_t (*nvml_procs_fn)(nvmlDevice_t, unsigned int*, nvml_proc*);

#define NVML_MISSING (-1000)

static const char* nvml_open(void) {
	if (nvml) return NULL;
	nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!nvml) return dlerror();
	nvml_procs_fn = dlsym(nvml, "nvmlDeviceGetComputeRunningProcesses_v3");
	if (!nvml_procs_fn) nvml_procs_fn = dlsym(nvml, "nvmlDeviceGetComputeRunningProcesses_v2");
	return NULL;
}

static void* nvml_sym(const char* name) { return nvml ? dlsym(nvml, name) : NULL; }

static nvmlReturn_t nvml_init(void) {
	nvmlReturn_t (*f)(void) = nvml_sym("nvmlInit_v2");
	return f ? f() : NVML_MISSING;
}
static nvmlReturn_t nvml_count(unsigned int* n) {
	nvmlReturn_t (*f)(unsigned int*) = nvml_sym("nvmlDeviceGetCount_v2");
	return f ? f(n) : NVML_MISSING;
}
static nvmlReturn_t nvml_handle(unsigned int i, nvmlDevice_t* d) {
	nvmlReturn_t (*f)(unsigned int, nvmlDevice_t*) = nvml_sym("nvmlDeviceGetHandleByIndex_v2");
	return f ? f(i, d) : NVML_MISSING;
}
static nvmlReturn_t nvml_procs(nvmlDevice_t d, unsigned int* n, nvml_proc* out) {
	return nvml_procs_fn ? nvml_procs_fn(d, n, out) : NVML_MISSING;
}
static nvmlReturn_t nvml_shutdown(void) {
	nvmlReturn_t (*f)(void) = nvml_sym("nvmlShutdown");
	return f ? f() : NVML_MISSING;
}
static const char* nvml_error(nvmlReturn_t r) {
	const char* (*f)(nvmlReturn_t) = nvml_sym("nvmlErrorString");
	return f ? f(r) : NULL;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// ErrNoNVML means NVML cannot be used here (libnvidia-ml.so.1 is missing,
// the driver is not loaded, it lists no GPU): nothing can be asked of
// the driver's view of processes.
var ErrNoNVML = errors.New("no NVML")

// Proc is one process in the driver's list of those with a compute
// context on a device.
type Proc struct {
	Pid    int
	Device int
	// Bytes is the GPU memory the driver counts as the process's (its
	// context's own included); Unknown when the driver will not say (a
	// container without the right to see other processes' figures).
	Bytes uint64
}

// Unknown is Proc.Bytes when the driver gives no figure.
const Unknown = ^uint64(0)

// Lister lists the processes that have a context on any GPU. NVML is the
// real one; tests give a fake.
type Lister interface {
	Processes() ([]Proc, error)
}

// NVML reads the driver's running-process list through
// libnvidia-ml.so.1. It only reads: it never changes a setting of the
// GPU (accounting, compute mode, MIG, persistence).
type NVML struct {
	devices []C.nvmlDevice_t
	buf     []C.nvml_proc
}

var _ Lister = (*NVML)(nil)

var nvmlMu sync.Mutex

// OpenNVML loads NVML and finds the devices. Close gives NVML back.
func OpenNVML() (*NVML, error) {
	nvmlMu.Lock()
	defer nvmlMu.Unlock()
	if msg := C.nvml_open(); msg != nil {
		return nil, fmt.Errorf("%w: libnvidia-ml.so.1 cannot be loaded (%s)", ErrNoNVML, C.GoString(msg))
	}
	if err := nvmlCheck("nvmlInit_v2", C.nvml_init()); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoNVML, err)
	}
	var n C.uint
	if err := nvmlCheck("nvmlDeviceGetCount_v2", C.nvml_count(&n)); err != nil {
		C.nvml_shutdown()
		return nil, err
	}
	m := &NVML{buf: make([]C.nvml_proc, 64)}
	for i := 0; i < int(n); i++ {
		var d C.nvmlDevice_t
		if err := nvmlCheck("nvmlDeviceGetHandleByIndex_v2", C.nvml_handle(C.uint(i), &d)); err != nil {
			C.nvml_shutdown()
			return nil, err
		}
		m.devices = append(m.devices, d)
	}
	if len(m.devices) == 0 {
		C.nvml_shutdown()
		return nil, fmt.Errorf("%w: nvmlDeviceGetCount_v2: the driver lists no GPU", ErrNoNVML)
	}
	return m, nil
}

// Processes lists every process with a compute context, on every device.
func (m *NVML) Processes() ([]Proc, error) {
	nvmlMu.Lock()
	defer nvmlMu.Unlock()
	var out []Proc
	for i, d := range m.devices {
		for {
			n := C.uint(len(m.buf))
			r := C.nvml_procs(d, &n, (*C.nvml_proc)(unsafe.Pointer(&m.buf[0])))
			const insufficientSize = 7 // NVML_ERROR_INSUFFICIENT_SIZE: n is now what is needed
			if r == insufficientSize && int(n) > len(m.buf) {
				m.buf = make([]C.nvml_proc, int(n)+16)
				continue
			}
			if err := nvmlCheck("nvmlDeviceGetComputeRunningProcesses", r); err != nil {
				return nil, err
			}
			for _, p := range m.buf[:min(int(n), len(m.buf))] {
				out = append(out, Proc{Pid: int(p.pid), Device: i, Bytes: uint64(p.usedGpuMemory)})
			}
			break
		}
	}
	return out, nil
}

// Close shuts NVML down (the library stays loaded).
func (m *NVML) Close() error {
	nvmlMu.Lock()
	defer nvmlMu.Unlock()
	return nvmlCheck("nvmlShutdown", C.nvml_shutdown())
}

func nvmlCheck(op string, r C.nvmlReturn_t) error {
	switch r {
	case 0:
		return nil
	case C.NVML_MISSING:
		return fmt.Errorf("%s: NVML does not have this function (a driver older than CUDA 11.1?)", op)
	}
	msg := "NVML error"
	if s := C.nvml_error(r); s != nil {
		msg = C.GoString(s)
	}
	return fmt.Errorf("%s: %s (%d)", op, msg, int(r))
}
