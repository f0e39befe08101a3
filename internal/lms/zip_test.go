package lms

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadZipRefusesWhatLeavesTheFolder(t *testing.T) {
	p := writeZip(t,
		entry{name: "alice/pool.cu", data: "ok"},
		entry{name: "../escape.cu", data: "x"},
		entry{name: "alice/../../escape.cu", data: "x"},
		entry{name: "/etc/passwd", data: "x"},
		entry{name: `C:\Windows\evil.cu`, data: "x"},
		entry{name: `bob\..\..\evil.cu`, data: "x"},
		entry{name: "alice/link.cu", data: "/etc/shadow", mode: fs.ModeSymlink | 0o777},
		entry{name: "alice/fifo", mode: fs.ModeNamedPipe | 0o644},
		entry{name: "alice/sub/", mode: fs.ModeDir | 0o755},
		entry{name: `carol\win.cu`, data: "ok"},
	)
	files, notes, err := ReadZip(p, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(files), []string{"alice/pool.cu", "carol/win.cu"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
	want := map[string]string{
		"../escape.cu":          "a path with ..",
		"alice/../../escape.cu": "a path with ..",
		"/etc/passwd":           "an absolute path",
		`C:\Windows\evil.cu`:    "a drive letter",
		`bob\..\..\evil.cu`:     "a path with ..",
		"alice/link.cu":         "a link in the archive",
		"alice/fifo":            "not a regular file",
	}
	if len(notes) != len(want) {
		t.Errorf("%d notes, want %d: %+v", len(notes), len(want), notes)
	}
	for _, n := range notes {
		if n.Kind != Refused || !strings.Contains(n.Why, want[n.File]) || want[n.File] == "" {
			t.Errorf("note %+v, want refused: %q", n, want[n.File])
		}
	}
}

func TestReadZipLimits(t *testing.T) {
	zeros := strings.Repeat("\x00", 2<<20)
	for _, tc := range []struct {
		name    string
		lim     Limits
		es      []entry
		limit   string // a LimitError saying this
		refused string // else a refused note saying this
	}{
		{"entries", Limits{Entries: 2, Total: 1 << 30, PerEntry: 1 << 20, Ratio: 100, Depth: 1},
			[]entry{{name: "a/1"}, {name: "a/2"}, {name: "a/3"}}, "more than 2 files", ""},
		{"total", Limits{Entries: 10, Total: 10, PerEntry: 1 << 20, Ratio: 100, Depth: 1},
			[]entry{{name: "a/1", data: "123456"}, {name: "a/2", data: "123456"}}, "more than 10 bytes in all", ""},
		{"per entry", Limits{Entries: 10, Total: 1 << 30, PerEntry: 4, Ratio: 100, Depth: 1},
			[]entry{{name: "a/1", data: "123456"}}, "", "over the limit of 4"},
		{"ratio", Limits{Entries: 10, Total: 1 << 30, PerEntry: 4 << 20, Ratio: 100, Depth: 1},
			[]entry{{name: "a/zeros", data: zeros}}, "", "over the limit of 100 to 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, notes, err := ReadZip(writeZip(t, tc.es...), tc.lim)
			var le *LimitError
			switch {
			case tc.limit != "" && (!errors.As(err, &le) || !strings.Contains(err.Error(), tc.limit)):
				t.Errorf("err = %v, want a LimitError saying %q", err, tc.limit)
			case tc.refused != "" && (err != nil || len(notes) != 1 || !strings.Contains(notes[0].Why, tc.refused)):
				t.Errorf("err = %v, notes %+v, want one refused: %q", err, notes, tc.refused)
			}
		})
	}
}

// A header that understates an entry's size is caught by the bytes
// inflated, not believed.
func TestReadZipSizeInHeaderIsNotTrusted(t *testing.T) {
	big := strings.Repeat("A", 100<<10)
	var plain bytes.Buffer
	zw := zip.NewWriter(&plain)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "a/big.cu", Method: zip.Store})
	w.Write([]byte(big))
	zw.Close()
	data := plain.Bytes()
	// Rewrite the uncompressed size (central directory and local header)
	// to 10 bytes.
	patched := bytes.ReplaceAll(data, le32(uint32(len(big))), le32(10))
	p := filepath.Join(t.TempDir(), "lie.zip")
	os.WriteFile(p, patched, 0o644)
	_, _, err := ReadZip(p, Limits{Entries: 10, Total: 1 << 30, PerEntry: 1 << 10, Ratio: 100, Depth: 1})
	if err == nil {
		t.Fatal("a zip whose header lies about a size was read")
	}
	if !strings.Contains(err.Error(), `"a/big.cu"`) {
		t.Errorf("err = %v, want it to name the entry", err)
	}
}

func le32(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

func TestReadZipCorruptNamesTheEntry(t *testing.T) {
	data := zipOf(t, entry{name: "alice/ok.cu", data: strings.Repeat("fine ", 100)},
		entry{name: "bob/broken.cu", data: strings.Repeat("kernel<<<1,1>>>() ", 200)})
	// Damage bob's compressed bytes: after his local header's name.
	i := bytes.Index(data, []byte("bob/broken.cu")) + len("bob/broken.cu") + 5
	for j := i; j < i+20; j++ {
		data[j] ^= 0x5a
	}
	p := filepath.Join(t.TempDir(), "class.zip")
	os.WriteFile(p, data, 0o644)
	_, _, err := ReadZip(p, DefaultLimits)
	var ze *ZipError
	if !errors.As(err, &ze) || ze.Entry != "bob/broken.cu" || !strings.Contains(err.Error(), "download it again") {
		t.Errorf("err = %v, want a ZipError naming bob/broken.cu", err)
	}

	os.WriteFile(p, []byte("not a zip at all"), 0o644)
	if _, _, err := ReadZip(p, DefaultLimits); !errors.As(err, &ze) || !strings.Contains(err.Error(), "is it a zip?") {
		t.Errorf("err = %v, want a ZipError asking whether it is a zip", err)
	}
}

func TestReadZipNested(t *testing.T) {
	inner := zipOf(t, entry{name: "day070/async_pipeline.cu", data: "inner"})
	innermost := zipOf(t, entry{name: "deep.cu", data: "deep"})
	middle := zipOf(t, entry{name: "again.zip", data: string(innermost)})
	p := writeZip(t,
		entry{name: "alice/work.zip", data: string(inner), store: true},
		entry{name: "bob/twice.zip", data: string(middle)},
		entry{name: "carol/broken.zip", data: "PK\x03\x04 and then nothing"},
		entry{name: "dave/notazip.zip", data: "just text"},
	)
	files, notes, err := ReadZip(p, Limits{Entries: 100, Total: 1 << 20, PerEntry: 1 << 20, Ratio: 100, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(files), []string{"alice/work.zip/day070/async_pipeline.cu", "dave/notazip.zip"}; !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	why := map[string]string{}
	for _, n := range notes {
		why[n.File] = n.Why
	}
	if !strings.Contains(why["bob/twice.zip/again.zip"], "a zip inside 2 zips") {
		t.Errorf("the zip too deep: %q (notes %+v)", why["bob/twice.zip/again.zip"], notes)
	}
	if !strings.Contains(why["carol/broken.zip"], "a damaged zip") {
		t.Errorf("the damaged nested zip: %q", why["carol/broken.zip"])
	}
}

func TestEntryNamesInAnyEncoding(t *testing.T) {
	p := writeZip(t,
		// "José/día.cu" in code page 437, as old Windows zips write it.
		entry{name: "Jos\x82/d\xa1a.cu", data: "1", raw: true},
		// UTF-8 with the flag.
		entry{name: "Zoë/pool.cu", data: "2"},
		// UTF-8 without the flag, as many tools write it.
		entry{name: "Łukasz/pool.cu", data: "3", raw: true},
		// A CP437 name with an Info-ZIP Unicode Path field that says better.
		entry{name: "M\x81ller/pool.cu", data: "4", raw: true, extra: unicodeExtra("M\x81ller/pool.cu", "Müller/pool.cu")},
	)
	files, notes, err := ReadZip(p, DefaultLimits)
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	want := []string{"José/día.cu", "Zoë/pool.cu", "Łukasz/pool.cu", "Müller/pool.cu"}
	if got := paths(files); !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
}

func TestReadFolderRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "alice"), 0o755)
	os.WriteFile(filepath.Join(dir, "alice", "pool.cu"), []byte("mine"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "alice", "theirs.cu"))
	os.Symlink(filepath.Join(dir, "alice"), filepath.Join(dir, "mallory"))
	files, notes, err := ReadFolder(dir, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(files); !slices.Equal(got, []string{"alice/pool.cu"}) {
		t.Errorf("files %q", got)
	}
	if len(notes) != 2 || notes[0].Kind != Refused || !strings.Contains(notes[0].Why, "a link") {
		t.Errorf("notes %+v, want two links refused", notes)
	}
}

// FuzzReadZip: whatever the bytes, reading them never panics, and every
// file kept has a path inside the folder.
func FuzzReadZip(f *testing.F) {
	f.Add(zipOf(f, entry{name: "alice/pool.cu", data: "x"}, entry{name: "../x", data: "y"}))
	f.Add(zipOf(f, entry{name: "a/b.zip", data: string(zipOf(f, entry{name: "c.cu", data: "z"}))}))
	f.Add(zipOf(f, entry{name: "Jos\x82/x", raw: true}))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Fuzz(func(t *testing.T, data []byte) {
		u := &unpacker{lim: Limits{Entries: 100, Total: 1 << 20, PerEntry: 1 << 18, Ratio: 100, Depth: 2}, archive: "fuzz.zip"}
		if err := u.zip(data, "", 0); err != nil {
			return
		}
		for _, file := range u.files {
			p := file.Path
			if strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") || strings.Contains(p, `\`) && strings.Contains(p, `..`) {
				t.Errorf("kept %q, which leaves the folder", p)
			}
			if filepath.IsAbs(p) || !filepath.IsLocal(p) {
				t.Errorf("kept %q, not a local path", p)
			}
		}
	})
}
