// Package gpu is the tool's view of the GPU and the CUDA toolchain.
//
// The driver is loaded at run time (dlopen of libcuda.so.1), so the package
// builds without CUDA headers and one binary runs on machines with and
// without a GPU: on one without, Probe says why and nothing else changes.
package gpu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;

static void* lib;

static const char* gpu_open(void) {
	if (lib) return NULL;
	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) return dlerror();
	return NULL;
}

static void* sym(const char* name) { return lib ? dlsym(lib, name) : NULL; }

#define MISSING (-1000)

static CUresult gpu_init(void) {
	CUresult (*f)(unsigned) = sym("cuInit");
	return f ? f(0) : MISSING;
}
static CUresult gpu_driver_version(int* v) {
	CUresult (*f)(int*) = sym("cuDriverGetVersion");
	return f ? f(v) : MISSING;
}
static CUresult gpu_count(int* n) {
	CUresult (*f)(int*) = sym("cuDeviceGetCount");
	return f ? f(n) : MISSING;
}
static CUresult gpu_device(CUdevice* d, int i) {
	CUresult (*f)(CUdevice*, int) = sym("cuDeviceGet");
	return f ? f(d, i) : MISSING;
}
static CUresult gpu_name(char* buf, int len, CUdevice d) {
	CUresult (*f)(char*, int, CUdevice) = sym("cuDeviceGetName");
	return f ? f(buf, len, d) : MISSING;
}
static CUresult gpu_attr(int* v, int attr, CUdevice d) {
	CUresult (*f)(int*, int, CUdevice) = sym("cuDeviceGetAttribute");
	return f ? f(v, attr, d) : MISSING;
}
static CUresult gpu_total(size_t* b, CUdevice d) {
	CUresult (*f)(size_t*, CUdevice) = sym("cuDeviceTotalMem_v2");
	return f ? f(b, d) : MISSING;
}
// gpu_free reads free memory through the device's primary context.
static CUresult gpu_free(size_t* freeb, size_t* total, CUdevice d) {
	CUresult (*retain)(CUcontext*, CUdevice) = sym("cuDevicePrimaryCtxRetain");
	CUresult (*release)(CUdevice) = sym("cuDevicePrimaryCtxRelease_v2");
	CUresult (*push)(CUcontext) = sym("cuCtxPushCurrent_v2");
	CUresult (*pop)(CUcontext*) = sym("cuCtxPopCurrent_v2");
	CUresult (*info)(size_t*, size_t*) = sym("cuMemGetInfo_v2");
	if (!retain || !release || !push || !pop || !info) return MISSING;
	CUcontext ctx;
	CUresult r = retain(&ctx, d);
	if (r) return r;
	r = push(ctx);
	if (!r) {
		r = info(freeb, total);
		pop(&ctx);
	}
	release(d);
	return r;
}
static const char* gpu_error_name(CUresult r) {
	CUresult (*f)(CUresult, const char**) = sym("cuGetErrorName");
	const char* s = NULL;
	if (f) f(r, &s);
	return s;
}
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/cudalessons/lessons/internal/safefs"
)

// Device is one GPU as the driver reports it.
type Device struct {
	Index        int
	Name         string
	Major, Minor int // compute capability
	TotalBytes   uint64
	// FreeBytes is 0 unless the probe asked for it (it needs a context).
	FreeBytes uint64
}

// Arch is the nvcc architecture for the device, e.g. sm_90.
func (d Device) Arch() string { return fmt.Sprintf("sm_%d%d", d.Major, d.Minor) }

// Info is what the driver says about the machine.
type Info struct {
	// Driver is the CUDA version the driver supports, e.g. 13000 for 13.0.
	Driver  int
	Devices []Device
}

// DriverVersion is Driver as major.minor.
func (i *Info) DriverVersion() string {
	return fmt.Sprintf("%d.%d", i.Driver/1000, i.Driver%1000/10)
}

// ErrNoDriver means libcuda.so.1 could not be loaded: no NVIDIA driver.
var ErrNoDriver = errors.New("no NVIDIA driver: libcuda.so.1 cannot be loaded")

// Prober finds the GPUs. The real one asks the driver; tests use a fake.
type Prober interface {
	Probe(withFree bool) (*Info, error)
}

// Driver is the Prober that asks the CUDA driver.
type Driver struct{}

var _ Prober = Driver{}

var driverMu sync.Mutex

// Probe loads the driver and lists the devices. withFree also reads each
// device's free memory, which creates a context (a few hundred ms).
func (Driver) Probe(withFree bool) (*Info, error) {
	driverMu.Lock()
	defer driverMu.Unlock()
	if msg := C.gpu_open(); msg != nil {
		return nil, fmt.Errorf("%w (%s)", ErrNoDriver, C.GoString(msg))
	}
	if err := check("cuInit", C.gpu_init()); err != nil {
		return nil, err
	}
	info := &Info{}
	var v, n C.int
	if err := check("cuDriverGetVersion", C.gpu_driver_version(&v)); err != nil {
		return nil, err
	}
	info.Driver = int(v)
	if err := check("cuDeviceGetCount", C.gpu_count(&n)); err != nil {
		return nil, err
	}
	for i := 0; i < int(n); i++ {
		var dev C.CUdevice
		if err := check("cuDeviceGet", C.gpu_device(&dev, C.int(i))); err != nil {
			return nil, err
		}
		d := Device{Index: i}
		buf := (*C.char)(C.malloc(256))
		err := check("cuDeviceGetName", C.gpu_name(buf, 256, dev))
		d.Name = C.GoString(buf)
		C.free(unsafe.Pointer(buf))
		if err != nil {
			return nil, err
		}
		var major, minor C.int
		const ccMajor, ccMinor = 75, 76 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_*
		if err := check("cuDeviceGetAttribute", C.gpu_attr(&major, ccMajor, dev)); err != nil {
			return nil, err
		}
		if err := check("cuDeviceGetAttribute", C.gpu_attr(&minor, ccMinor, dev)); err != nil {
			return nil, err
		}
		d.Major, d.Minor = int(major), int(minor)
		var total C.size_t
		if err := check("cuDeviceTotalMem", C.gpu_total(&total, dev)); err != nil {
			return nil, err
		}
		d.TotalBytes = uint64(total)
		if withFree {
			var free, t C.size_t
			if err := check("cuMemGetInfo", C.gpu_free(&free, &t, dev)); err != nil {
				return nil, err
			}
			d.FreeBytes = uint64(free)
		}
		info.Devices = append(info.Devices, d)
	}
	return info, nil
}

func check(op string, r C.CUresult) error {
	switch r {
	case 0:
		return nil
	case C.MISSING:
		return fmt.Errorf("%s: the driver does not have this function (too old?)", op)
	}
	name := "CUDA error"
	if s := C.gpu_error_name(r); s != nil {
		name = C.GoString(s)
	}
	if r == 100 { // CUDA_ERROR_NO_DEVICE
		return fmt.Errorf("%s: %s: the driver is installed but sees no GPU", op, name)
	}
	return fmt.Errorf("%s: %s (%d)", op, name, int(r))
}

// Cached is a Prober that keeps the last answer in a file, keyed by what
// the kernel driver says of itself and its devices (/proc/driver/nvidia), so
// that a run does not pay for cuInit just to learn the architecture. Where
// that folder does not exist, every probe asks the driver.
type Cached struct {
	Prober Prober
	File   string
}

var _ Prober = Cached{}

// Probe answers from the file when the driver and devices are unchanged.
// Free memory is never cached.
func (c Cached) Probe(withFree bool) (*Info, error) {
	key := driverKey()
	if withFree || key == "" || c.File == "" {
		return c.Prober.Probe(withFree)
	}
	var saved struct {
		Key  string
		Info *Info
	}
	if data, err := os.ReadFile(c.File); err == nil && json.Unmarshal(data, &saved) == nil && saved.Key == key && saved.Info != nil {
		return saved.Info, nil
	}
	info, err := c.Prober.Probe(false)
	if err != nil {
		return nil, err
	}
	saved.Key, saved.Info = key, info
	if data, err := json.Marshal(saved); err == nil {
		_ = os.MkdirAll(filepath.Dir(c.File), 0o755)
		_ = safefs.WriteAtomic(c.File, data, 0o644)
	}
	return info, nil
}

// driverKey is what the kernel driver says of itself (its version line,
// where it has one) and of each GPU (model, bus, UUID), or "" when it says
// nothing. Compute capability, the part a run needs, cannot change without
// a change of GPU.
func driverKey() string {
	var b strings.Builder
	if v, err := os.ReadFile("/proc/driver/nvidia/version"); err == nil {
		b.Write(v)
	}
	infos, _ := filepath.Glob("/proc/driver/nvidia/gpus/*/information")
	sort.Strings(infos)
	for _, f := range infos {
		data, err := os.ReadFile(f)
		if err != nil {
			return ""
		}
		b.WriteString(f)
		b.Write(data)
	}
	return b.String()
}
