package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// saves are the ways editors write a file.
var saves = map[string]func(t *testing.T, path string){
	"in place": func(t *testing.T, path string) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("int main() { return 1; }\n")
		f.Close()
	},
	"temp then rename": func(t *testing.T, path string) {
		tmp := path + ".swp"
		os.WriteFile(tmp, []byte("int main() { return 2; }\n"), 0o644)
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	},
	"delete and create": func(t *testing.T, path string) {
		os.Remove(path)
		time.Sleep(20 * time.Millisecond)
		os.WriteFile(path, []byte("int main() { return 3; }\n"), 0o644)
	},
	"burst": func(t *testing.T, path string) {
		for i := 0; i < 10; i++ {
			os.WriteFile(path, []byte{byte('a' + i), '\n'}, 0o644)
			time.Sleep(5 * time.Millisecond)
		}
	},
}

// watchers gives a way to start each kind of watcher: each test starts one
// at a time, so that no watcher sees another's events.
func watchers(t *testing.T, files []string) map[string]func() Watcher {
	ws := map[string]func() Watcher{"poll": func() Watcher { return NewPoll(files, 20*time.Millisecond) }}
	if w, err := NewNotify(files); err == nil {
		w.Close()
		ws["fsnotify"] = func() Watcher {
			w, err := NewNotify(files)
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
	} else {
		t.Logf("fsnotify not available here: %v", err)
	}
	return ws
}

// TestSaves checks that every way of saving gives exactly one debounced
// batch naming the file, with each watcher.
func TestSaves(t *testing.T) {
	for save, do := range saves {
		t.Run(save, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "ex.cu")
			other := filepath.Join(dir, "other.cu")
			os.WriteFile(path, []byte("int main() {}\n"), 0o644)
			os.WriteFile(other, []byte("x\n"), 0o644)
			for kind, start := range watchers(t, []string{path}) {
				w := start()
				batches := Debounce(w.Events(), 150*time.Millisecond)
				time.Sleep(50 * time.Millisecond)
				os.WriteFile(other, []byte("y\n"), 0o644) // not watched
				do(t, path)
				select {
				case b := <-batches:
					if len(b) != 1 || b[0] != path {
						t.Errorf("%s: batch = %v", kind, b)
					}
				case <-time.After(3 * time.Second):
					t.Errorf("%s: no event for a %s save", kind, save)
				}
				select {
				case b := <-batches:
					t.Errorf("%s: a second batch %v for one save", kind, b)
				case <-time.After(400 * time.Millisecond):
				}
				w.Close()
			}
		})
	}
}

func TestNewFileIsSeen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "later.cu")
	for kind, start := range watchers(t, []string{path}) {
		w := start()
		batches := Debounce(w.Events(), 100*time.Millisecond)
		time.Sleep(50 * time.Millisecond)
		os.WriteFile(path, []byte("new\n"), 0o644)
		select {
		case <-batches:
		case <-time.After(3 * time.Second):
			t.Errorf("%s: a file created after the start is not seen", kind)
		}
		w.Close()
		os.Remove(path)
	}
}

// TestDebounceStartsAtOnce: one save is passed on after Settle, not after
// the whole quiet period; a rewrite within the quiet period (a formatter)
// makes one more batch at the end of the burst, and no more.
func TestDebounceStartsAtOnce(t *testing.T) {
	in := make(chan string)
	out := Debounce(in, 300*time.Millisecond)
	start := time.Now()
	in <- "a"
	in <- "a"
	<-out
	if d := time.Since(start); d >= 300*time.Millisecond {
		t.Errorf("the first batch came after %v, not at once", d)
	}
	time.Sleep(50 * time.Millisecond)
	in <- "a" // the formatter
	in <- "b"
	start = time.Now()
	if b := <-out; len(b) != 2 || b[0] != "a" || b[1] != "b" {
		t.Errorf("the burst's last batch = %v", b)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("the burst's last batch came %v after its last event, before the quiet period", d)
	}
	close(in)
	if b, ok := <-out; ok {
		t.Errorf("a batch %v after the burst", b)
	}
}

func TestDebounce(t *testing.T) {
	in := make(chan string)
	out := Debounce(in, 50*time.Millisecond)
	go func() {
		for _, n := range []string{"a", "b", "a", "a"} {
			in <- n
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(150 * time.Millisecond)
		in <- "c"
		close(in)
	}()
	first := <-out
	if len(first) != 2 || first[0] != "a" || first[1] != "b" {
		t.Errorf("first batch = %v", first)
	}
	if second := <-out; len(second) != 1 || second[0] != "c" {
		t.Errorf("second batch = %v", second)
	}
	if _, ok := <-out; ok {
		t.Error("output not closed")
	}
}
