package cli

import (
	"testing"

	"github.com/cudalessons/lessons/internal/iostreams"
)

func TestDoctorFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	ran := false
	if err := execute(newDoctor(ios, func(o *DoctorOptions) error { ran = o.IO == ios; return nil })); err != nil || !ran {
		t.Errorf("doctor: ran %v, %v", ran, err)
	}
	wantUsage(t, execute(newDoctor(ios, func(*DoctorOptions) error { return nil }), "gpu"), "takes no arguments")
	var pace bool
	if err := execute(newDoctor(ios, func(o *DoctorOptions) error { pace = o.Pace; return nil }), "--pace"); err != nil || !pace {
		t.Errorf("doctor --pace: %v, %v", pace, err)
	}
}

func TestCacheFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *CacheOptions
	cmd := newCache(ios, func(o *CacheOptions) error { got = o; return nil })
	if err := execute(cmd); err != nil || got.Clean {
		t.Errorf("cache: %+v, %v", got, err)
	}
	cmd = newCache(ios, func(o *CacheOptions) error { got = o; return nil })
	if err := execute(cmd, "clean"); err != nil || !got.Clean {
		t.Errorf("cache clean: %+v, %v", got, err)
	}
	wantUsage(t, execute(newCache(ios, func(*CacheOptions) error { return nil }), "purge"), "cache takes nothing, or clean")
}

// TestCacheShowsAndCleans runs the command itself on a cache of its own.
func TestCacheShowsAndCleans(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("LESSONS_CACHE", dir)
	ios, _, out, _ := iostreams.Test()
	if err := execute(newCache(ios, nil)); err != nil || !contains(out.String(), dir, "0 builds") {
		t.Errorf("cache: %q, %v", out.String(), err)
	}
	out.Reset()
	if err := execute(newCache(ios, nil), "clean"); err != nil || !contains(out.String(), "emptied "+dir) {
		t.Errorf("cache clean: %q, %v", out.String(), err)
	}
}
