package lms

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// entry is one entry of a zip built by a test.
type entry struct {
	name  string
	data  string
	mode  fs.FileMode // 0: a regular file
	store bool        // stored, not deflated
	raw   bool        // the name's bytes as they are, without the UTF-8 flag
	extra []byte
}

// zipOf builds a zip of entries, as an LMS (or a hostile student) would.
func zipOf(t testing.TB, es ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Extra: e.extra, NonUTF8: e.raw}
		if e.store {
			h.Method = zip.Store
		}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeZip writes a zip of entries into a temporary folder.
func writeZip(t testing.TB, es ...entry) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "download.zip")
	if err := os.WriteFile(p, zipOf(t, es...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// unicodeExtra is an Info-ZIP Unicode Path field for raw, naming it name.
func unicodeExtra(raw, name string) []byte {
	b := []byte{0x75, 0x70, 0, 0, 1, 0, 0, 0, 0}
	size := 5 + len(name)
	b[2], b[3] = byte(size), byte(size>>8)
	c := crc32.ChecksumIEEE([]byte(raw))
	b[5], b[6], b[7], b[8] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
	return append(b, name...)
}

func paths(fs []File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}
