package kernels_test

import "testing"

// A trim is a pool setting (review/blind27): pool_settings_unused counts
// cudaMemPoolTrimTo on a pool no allocation came from, as it counts an
// attribute written there. review/blind27's pool-reuse trimmed the
// device's default pool in measure_peak where its own was meant; its own
// pool was empty there anyway, so every line it printed was right and it
// passed every check on two H200s. Every correct design of pool-reuse
// (the solution, its right alternatives, every blind set's correct
// design whole, as grade runs it) trims only the pool it allocates from
// and counts none; the port counts its two measurements' trims, and the
// older ports that trim the default pool in finish count theirs too.
func TestPoolSettingsUnusedCountTrims(t *testing.T) {
	h := buildHarnessRig(t)
	const sol = "solutions/day069/pool_reuse.cu"
	for i, p := range correctDesigns(t, sol, "solutions/day069/right/pool-reuse", "pool-reuse", "correct.cu") {
		prog := h.build(t, "trims69-"+string(rune('a'+i)), sol, sol, p.content)
		s, out := recordAnyExit(t, h, prog)
		if s.PoolTrims == 0 || s.PoolSettingsUnused != 0 {
			t.Errorf("%s: pool_trims %d, pool_settings_unused %d, want trims, none on a pool nothing came from\n%s", p.name, s.PoolTrims, s.PoolSettingsUnused, out)
		}
	}
	for w, want := range map[string]uint64{
		"blind27_measure_trims_the_devices_default_pool": 2,
		"blind16_finish_trims_the_devices_default_pool":  2, // its threshold and its trim
		"blind22_finish_trims_the_devices_default_pool":  1,
	} {
		prog := h.build(t, "trims69-"+w, sol, sol, patched(t, sol, "solutions/day069/wrong/pool-reuse/"+w+".patch"))
		if s, out := recordAnyExit(t, h, prog); s.PoolSettingsUnused != want {
			t.Errorf("%s: pool_settings_unused %d, want %d\n%s", w, s.PoolSettingsUnused, want, out)
		}
	}
}
