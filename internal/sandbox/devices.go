package sandbox

// Every GPU's device file was open to a run: a program that set
// CUDA_VISIBLE_DEVICES itself before CUDA started reached every GPU of
// the machine, a classmate's timed exercise's included. So the Runner
// reads which GPUs the program's environment gives it (the grader's
// CUDA_VISIBLE_DEVICES), finds their device files from the driver's own
// information (/proc/driver/nvidia/gpus/BUS/information: its minor, its
// UUID), and the program may open those alone: Landlock's rules name
// them, and where the helper has a mount namespace its /dev is a small
// tmpfs holding nothing but them (bind mounts of the real files, as
// NVIDIA's container toolkit does), the harmless devices, /dev/shm and
// the links to its own descriptors. The program's CUDA_VISIBLE_DEVICES
// names them by UUID, which CUDA reads the same whichever GPUs it can
// see. Where the environment names a GPU this cannot tell (a MIG
// instance, an index past the last GPU), every GPU stays open, as before.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// devRoot is the machine's /dev and gpuInfo the driver's folder of its
// GPUs; tests change them.
var (
	devRoot = "/dev"
	gpuInfo = "/proc/driver/nvidia/gpus"
)

// gpuNode is one GPU as the driver's information file names it.
type gpuNode struct {
	bus, uuid, model string
	minor            int
}

// gpuNodes are the GPUs this process may open (a device cgroup, as
// Slurm's ConstrainDevices sets, keeps others from it, and CUDA counts
// only those), in the order of their PCI bus: CUDA's order for GPUs of
// one model, and always with CUDA_DEVICE_ORDER=PCI_BUS_ID. They are read
// once a process: reading a GPU's information file enters the driver,
// which serves it behind the lock every CUDA start of the machine waits
// in, and a class's runs read them hundreds of times a minute.
func gpuNodes() []gpuNode {
	nodesMu.Lock()
	defer nodesMu.Unlock()
	key := gpuInfo + "\x00" + devRoot
	if nodesKey != key || nodesRead == nil {
		nodesKey, nodesRead = key, readGPUNodes()
	}
	return nodesRead
}

var (
	nodesMu   sync.Mutex
	nodesKey  string
	nodesRead []gpuNode // nil: not read yet
)

func readGPUNodes() []gpuNode {
	out := []gpuNode{}
	dirs, _ := filepath.Glob(filepath.Join(gpuInfo, "*", "information"))
	for _, f := range dirs {
		data, err := os.Open(f)
		if err != nil {
			continue
		}
		n := gpuNode{bus: filepath.Base(filepath.Dir(f)), minor: -1}
		sc := bufio.NewScanner(data)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			switch strings.TrimSpace(k) {
			case "GPU UUID":
				n.uuid = v
			case "Device Minor":
				n.minor, _ = strconv.Atoi(v)
			case "Bus Location":
				n.bus = v
			case "Model":
				n.model = v
			}
		}
		data.Close()
		// access(2) asks the device cgroup too, and opens nothing (an
		// open wakes a GPU without persistence mode).
		node := filepath.Join(devRoot, "nvidia"+strconv.Itoa(n.minor))
		if n.minor >= 0 && n.uuid != "" && unix.Access(node, unix.R_OK|unix.W_OK) == nil {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].bus < out[j].bus })
	return out
}

// givenGPUs reads a CUDA_VISIBLE_DEVICES value: the GPUs it names, by
// index or UUID (or its prefix, as CUDA takes it). ok is false where a
// name is none of those (MIG-..., an index past the last GPU), or is an
// index where the GPUs are of several models and CUDA's order is not
// the bus's (pciOrder: CUDA_DEVICE_ORDER=PCI_BUS_ID): then the caller
// keeps every GPU open.
func givenGPUs(visible string, nodes []gpuNode, pciOrder bool) (given []gpuNode, ok bool) {
	oneModel := true
	for _, n := range nodes {
		oneModel = oneModel && n.model == nodes[0].model
	}
	for _, name := range strings.Split(visible, ",") {
		name = strings.TrimSpace(name)
		if i, err := strconv.Atoi(name); err == nil {
			if i < 0 || i >= len(nodes) || !oneModel && !pciOrder {
				return nil, false
			}
			given = append(given, nodes[i])
			continue
		}
		if !strings.HasPrefix(name, "GPU-") {
			return nil, false
		}
		var match []gpuNode
		for _, n := range nodes {
			if strings.HasPrefix(n.uuid, name) {
				match = append(match, n)
			}
		}
		if len(match) != 1 {
			return nil, false
		}
		given = append(given, match[0])
	}
	return given, len(given) > 0
}

// isGPUFile reports whether name (in /dev) is one GPU's own file:
// nvidiaN.
func isGPUFile(name string) bool {
	d, ok := strings.CutPrefix(name, "nvidia")
	_, err := strconv.Atoi(d)
	return ok && err == nil
}

// devicesFor are the device files a program may open, and the value its
// CUDA_VISIBLE_DEVICES takes ("" to leave it as it is): /dev/null alone
// for noDevices; else the harmless ones and NVIDIA's, of the GPUs that
// env's CUDA_VISIBLE_DEVICES names alone where it can tell them (where it
// names none: every GPU; set but empty: none).
func devicesFor(noDevices bool, env []string) (devs []string, rename string) {
	for _, d := range deviceRW {
		if noDevices && d != "/dev/null" {
			continue
		}
		p := filepath.Join(devRoot, strings.TrimPrefix(d, "/dev/"))
		if _, err := os.Stat(p); err == nil {
			devs = append(devs, p)
		}
	}
	if noDevices {
		return devs, ""
	}
	keep := func(string) bool { return true }
	visible, set := lookupEnv(env, "CUDA_VISIBLE_DEVICES")
	switch {
	case set && strings.TrimSpace(visible) == "":
		keep = func(name string) bool { return !isGPUFile(name) }
	case set:
		pciOrder, _ := lookupEnv(env, "CUDA_DEVICE_ORDER")
		if given, ok := givenGPUs(visible, gpuNodes(), pciOrder == "PCI_BUS_ID"); ok {
			mine := map[string]bool{}
			var uuids []string
			for _, g := range given {
				mine["nvidia"+strconv.Itoa(g.minor)] = true
				uuids = append(uuids, g.uuid)
			}
			keep = func(name string) bool { return !isGPUFile(name) || mine[name] }
			rename = strings.Join(uuids, ",")
		}
	}
	gpus, _ := filepath.Glob(filepath.Join(devRoot, "nvidia*"))
	sort.Strings(gpus)
	for _, g := range gpus {
		if st, err := os.Stat(g); err == nil && !st.IsDir() && keep(filepath.Base(g)) {
			devs = append(devs, g)
		}
	}
	return devs, rename
}

// devDirs are the folders of /dev a program may read: MIG's capability
// devices, and POSIX shared memory's folder.
var devDirs = []string{"nvidia-caps", "shm"}

// ownDev makes the mount namespace's /dev a tmpfs holding p.Devices
// alone, each bound from the real one, with devDirs and the links to
// the program's own descriptors. The caller must have a mount namespace
// of its own and CAP_SYS_ADMIN in it.
func ownDev(p Policy) error {
	root := p.DevDir
	old, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("the run's /dev: %w", err)
	}
	defer unix.Close(old)
	from := func(name string) string { return fmt.Sprintf("/proc/self/fd/%d/%s", old, name) }
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k,nr_inodes=256"); err != nil {
		return fmt.Errorf("mounting the run's /dev: %w", err)
	}
	for _, d := range p.Devices {
		name, err := filepath.Rel(root, d)
		if err != nil || !filepath.IsLocal(name) {
			return &mountedError{fmt.Errorf("the run's /dev: %s is not in %s", d, root)}
		}
		to := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return &mountedError{fmt.Errorf("the run's /dev: %w", err)}
		}
		if err := os.WriteFile(to, nil, 0o644); err != nil {
			return &mountedError{fmt.Errorf("the run's /dev: %w", err)}
		}
		if err := unix.Mount(from(name), to, "", unix.MS_BIND, ""); err != nil {
			return &mountedError{fmt.Errorf("the run's /dev: binding %s: %w", d, err)}
		}
	}
	for _, d := range devDirs {
		if st, err := os.Stat(from(d)); err != nil || !st.IsDir() {
			continue
		}
		to := filepath.Join(root, d)
		if err := os.Mkdir(to, 0o755); err != nil {
			return &mountedError{fmt.Errorf("the run's /dev: %w", err)}
		}
		if err := unix.Mount(from(d), to, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return &mountedError{fmt.Errorf("the run's /dev: binding %s: %w", d, err)}
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			return &mountedError{fmt.Errorf("the run's /dev: %w", err)}
		}
	}
	// Nothing more is made in it.
	if err := unix.Mount("", root, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
		return &mountedError{fmt.Errorf("the run's /dev, made read-only: %w", err)}
	}
	return nil
}
