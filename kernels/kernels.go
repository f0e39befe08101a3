// Package kernels holds the CUDA and C sources the tool builds itself.
package kernels

import (
	"crypto/sha256"
	"embed"
	"io/fs"
	"strconv"
)

// Library is the source of the allocation-statistics library that
// lessons check preloads into a student's program: Main, the one file
// nvcc compiles, and the headers it includes in its one translation
// unit (its sections under allocstats/, and timeline.h, the trace's
// part), by their paths under kernels/. Write them all, folders kept,
// before building Main.
//
//go:embed allocstats.cu timeline.h allocstats/*.h
var Library embed.FS

// Main is the file of Library that nvcc compiles.
const Main = "allocstats.cu"

// File is one source file of the library.
type File struct {
	Path string // slash-separated, under kernels/
	Data []byte
}

// LibraryFiles are Library's files, sorted by path.
func LibraryFiles() []File {
	files, err := Files(Library)
	if err != nil {
		panic("kernels: reading the embedded library: " + err.Error())
	}
	return files
}

// Files are the regular files of fsys, sorted by path.
func Files(fsys fs.FS) ([]File, error) {
	var files []File
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		files = append(files, File{p, data})
		return err
	})
	return files, err
}

// LibrarySum is a SHA-256 over every file of the library, its path and
// its bytes: it changes when any part of the library does, so that what
// is keyed by it (the grade's spec hash, the build's cache) follows.
func LibrarySum() [32]byte { return Sum(LibraryFiles()) }

// Sum is a SHA-256 over files, each path and its bytes with their
// lengths, so that no two lists of files give the same input.
func Sum(files []File) [32]byte {
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(strconv.Itoa(len(f.Path)) + ":" + f.Path + strconv.Itoa(len(f.Data)) + ":"))
		h.Write(f.Data)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
