package kernels_test

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"testing"
	"testing/fstest"

	"github.com/cudalessons/lessons/kernels"
)

// writeLibrary writes every file of the library into dir, folders kept,
// as lessons does before it builds the library.
func writeLibrary(t *testing.T, dir string) {
	t.Helper()
	if err := writeLibraryFiles(dir); err != nil {
		t.Fatal(err)
	}
}

// writeLibraryFiles writes the library's files into dir.
func writeLibraryFiles(dir string) error {
	for _, f := range kernels.LibraryFiles() {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

var quoteInclude = regexp.MustCompile(`(?m)^\s*#\s*include\s+"([^"]+)"`)

// The library embeds exactly the files allocstats.cu reaches by its
// quoted includes, followed from each including file's folder as the
// compiler does, each as it is on disk: a section added, moved or
// renamed is built, written and hashed with the rest, or this fails.
func TestLibraryEmbedsEveryInclude(t *testing.T) {
	reached := map[string]bool{}
	var follow func(p string)
	follow = func(p string) {
		if reached[p] {
			return
		}
		reached[p] = true
		data, err := os.ReadFile(filepath.FromSlash(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, m := range quoteInclude.FindAllSubmatch(data, -1) {
			follow(path.Join(path.Dir(p), string(m[1])))
		}
	}
	follow(kernels.Main)
	if len(reached) < 3 {
		t.Fatalf("allocstats.cu reaches %d files; want its sections and timeline.h too", len(reached))
	}
	embedded := map[string]bool{}
	for _, f := range kernels.LibraryFiles() {
		embedded[f.Path] = true
		if !reached[f.Path] {
			t.Errorf("%s is embedded in the library but allocstats.cu does not include it", f.Path)
		}
		disk, err := os.ReadFile(filepath.FromSlash(f.Path))
		if err != nil || !bytes.Equal(disk, f.Data) {
			t.Errorf("%s: the embedded file is not the one on disk (%v)", f.Path, err)
		}
	}
	for p := range reached {
		if !embedded[p] {
			t.Errorf("allocstats.cu includes %s, which kernels.Library does not embed: add it to the go:embed line", p)
		}
	}
	sections, _ := filepath.Glob("allocstats/*")
	for _, s := range sections {
		if !reached[filepath.ToSlash(s)] {
			t.Errorf("%s is in the library's folder but allocstats.cu does not include it", s)
		}
	}
}

// The library's sum changes with any byte or name of any of its files,
// and with a file added or taken out.
func TestLibrarySumCoversEveryFile(t *testing.T) {
	fsys := fstest.MapFS{
		"allocstats.cu":      {Data: []byte(`#include "allocstats/a.h"`)},
		"allocstats/a.h":     {Data: []byte("int a;")},
		"allocstats/b.h":     {Data: []byte("int b;")},
		"timeline.h":         {Data: []byte("int t;")},
		"allocstats/empty.h": {Data: nil},
	}
	files, err := kernels.Files(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(fsys) {
		t.Fatalf("Files gave %d files of %d", len(files), len(fsys))
	}
	base := kernels.Sum(files)
	seen := map[[32]byte]string{base: "as it is"}
	try := func(what string, changed []kernels.File) {
		t.Helper()
		s := kernels.Sum(changed)
		if other, ok := seen[s]; ok {
			t.Errorf("%s gives the same sum as %s", what, other)
		}
		seen[s] = what
	}
	for i, f := range files {
		c := append([]kernels.File(nil), files...)
		c[i].Data = append(append([]byte(nil), f.Data...), ' ')
		try("a byte added to "+f.Path, c)
		c = append([]kernels.File(nil), files...)
		c[i].Path += "x"
		try(f.Path+" renamed", c)
		try(f.Path+" taken out", append(append([]kernels.File(nil), files[:i]...), files[i+1:]...))
	}
	// A byte moved from one file's end to the next file's start.
	a, b := files[0], files[1]
	if len(a.Data) > 0 {
		c := append([]kernels.File(nil), files...)
		c[0].Data = a.Data[:len(a.Data)-1]
		c[1].Data = append([]byte{a.Data[len(a.Data)-1]}, b.Data...)
		try("a byte moved between files", c)
	}
	if kernels.LibrarySum() != kernels.Sum(kernels.LibraryFiles()) {
		t.Error("LibrarySum is not the sum of LibraryFiles")
	}
}
