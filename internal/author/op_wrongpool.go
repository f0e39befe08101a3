package author

import (
	"strconv"
	"strings"
)

// wrongPool allocates from another pool than the one the program
// configured: cudaMallocFromPoolAsync(p, n, pool, s) becomes
// cudaMallocAsync(p, n, s), the device's current pool, so that the
// settings made on pool reach no allocation.
func (m *mutator) wrongPool(n int) {
	l := m.src.Lines[n-1]
	var sites []call
	for _, c := range calls(m.code[n-1], l, anyCallRE) {
		if c.name == "cudaMallocFromPoolAsync" && len(c.args) == 4 && allPure(c) {
			sites = append(sites, c)
		}
	}
	for k, c := range sites {
		args := []string{strings.TrimSpace(c.args[0]), strings.TrimSpace(c.args[1]), strings.TrimSpace(c.args[3])}
		repl := replaceCall(l, c, "cudaMallocAsync("+strings.Join(args, ", ")+")")
		variant := ""
		if len(sites) > 1 {
			variant = strconv.Itoa(k + 1)
		}
		m.add("wrong-pool", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

// poolSettings are the calls that set something of a pool, and which
// argument is the pool.
var poolSettings = map[string]int{"cudaMemPoolSetAttribute": 0, "cudaMemPoolSetAccess": 0, "cudaMemPoolTrimTo": 0}

// defaultPool is an expression for the current device's default pool.
const defaultPool = "[] { int lessons_d = 0; cudaGetDevice(&lessons_d); cudaMemPool_t lessons_p; cudaDeviceGetDefaultMemPool(&lessons_p, lessons_d); return lessons_p; }()"

// wrongPoolSetting makes each setting of a pool on line n (an attribute,
// access, a trim) on the device's default pool instead of the pool the
// program made: the setting reaches no allocation of the program's pool,
// and changes a pool every library on the device shares. A pool that the
// source takes from the device (cudaDeviceGetDefaultMemPool,
// cudaDeviceGetMemPool) is left alone: the mutant would be the program.
func (m *mutator) wrongPoolSetting(n int) {
	l := m.src.Lines[n-1]
	var sites []call
	for _, c := range calls(m.code[n-1], l, anyCallRE) {
		if i, ok := poolSettings[c.name]; ok && i < len(c.args) && allPure(c) && !m.devicePool(strings.TrimSpace(c.args[i])) {
			sites = append(sites, c)
		}
	}
	for k, c := range sites {
		i := poolSettings[c.name]
		st := c.argsStarts[i] + len(leading(c.args[i]))
		repl := l[:st] + defaultPool + l[st+len(strings.TrimSpace(c.args[i])):]
		variant := "default"
		if len(sites) > 1 {
			variant = strconv.Itoa(k+1) + ":default"
		}
		m.add("wrong-pool", n, variant, func(lines []string) []string {
			lines[n-1] = repl
			return lines
		})
	}
}

// devicePool reports whether the source takes pool from the device: it
// passes &pool to cudaDeviceGetDefaultMemPool or cudaDeviceGetMemPool.
func (m *mutator) devicePool(pool string) bool {
	for i, code := range m.code {
		for _, c := range calls(code, m.src.Lines[i], anyCallRE) {
			if (c.name == "cudaDeviceGetDefaultMemPool" || c.name == "cudaDeviceGetMemPool") && len(c.args) > 0 {
				if mm := addrOfRE.FindStringSubmatch(strings.TrimSpace(c.args[0])); mm != nil && mm[1] == pool {
					return true
				}
			}
		}
	}
	return false
}
