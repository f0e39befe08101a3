// Package buildcache keeps nvcc's outputs, keyed by everything that decides
// them: the sources and the local headers they include, the flags, and the
// compiler's path and version. A hit skips nvcc; a miss runs it and keeps
// the result. Entries are written to a temporary folder and renamed into
// place, so two processes building at once, or a build killed half way,
// never leave a broken entry; the cache is bounded and evicts the least
// recently used entries.
package buildcache

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cudalessons/lessons/internal/safefs"
)

// DefaultMaxBytes bounds the cache unless $LESSONS_CACHE_MAX says otherwise.
const DefaultMaxBytes = 2 << 30

// Cache is a folder of build outputs.
type Cache struct {
	Dir      string
	MaxBytes int64
	// Shared makes its folders enterable by every user but listable by
	// none (0711) and its files readable (shared.go): a shared cache
	// that one user writes and others read by key.
	Shared bool
}

// Default is the cache in $LESSONS_CACHE, else $XDG_CACHE_HOME/lessons or
// ~/.cache/lessons.
func Default() (*Cache, error) {
	dir := os.Getenv("LESSONS_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache folder: set LESSONS_CACHE (%v)", err)
		}
		dir = filepath.Join(base, "lessons")
	}
	c := &Cache{Dir: dir, MaxBytes: DefaultMaxBytes}
	if s := os.Getenv("LESSONS_CACHE_MAX"); s != "" {
		n, err := parseSize(s)
		if err != nil {
			return nil, fmt.Errorf("LESSONS_CACHE_MAX=%s: %v (use a size such as 500M or 2G)", s, err)
		}
		c.MaxBytes = n
	}
	return c, nil
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, errors.New("not a size")
	}
	return n * mult, nil
}

func (c *Cache) entry(key string) string { return filepath.Join(c.Dir, "nvcc", key[:2], key) }

// Entry files: the output and what the compiler printed.
const (
	outName = "out"
	logName = "log"
)

// Get copies the output stored under key to dst and returns what the
// compiler printed when it was built. ok is false on a miss.
func (c *Cache) Get(key, dst string) (log []byte, ok bool, err error) {
	dir := c.entry(key)
	src, err := os.Open(filepath.Join(dir, outName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return nil, false, err
	}
	if err := copyTo(dst, src, st.Mode().Perm()); err != nil {
		return nil, false, err
	}
	log, _ = os.ReadFile(filepath.Join(dir, logName))
	now := time.Now()
	_ = os.Chtimes(dir, now, now) // recently used
	return log, true, nil
}

// Put stores the file at out under key, with the compiler's log.
func (c *Cache) Put(key, out string, log []byte) error {
	final := c.entry(key)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(final), ".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src, err := os.Open(out)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	if err := copyTo(filepath.Join(tmp, outName), src, st.Mode().Perm()); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, logName), log, 0o644); err != nil {
		return err
	}
	if c.Shared {
		if err := c.openUp(tmp, final); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another process stored the same key first: theirs is as good.
		if _, statErr := os.Stat(filepath.Join(final, outName)); statErr == nil {
			return nil
		}
		return err
	}
	return c.Evict()
}

// openUp lets every user enter the folders on the way to an entry and
// the entry tmp about to become final, and read its files.
func (c *Cache) openUp(tmp, final string) error {
	for _, d := range []string{c.Dir, filepath.Join(c.Dir, "nvcc"), filepath.Dir(final), tmp} {
		if err := os.Chmod(d, 0o711); err != nil {
			return err
		}
	}
	if err := os.Chmod(filepath.Join(tmp, outName), 0o755); err != nil {
		return err
	}
	return os.Chmod(filepath.Join(tmp, logName), 0o644)
}

// copyTo writes src to dst whole or not at all.
func copyTo(dst string, src io.Reader, perm fs.FileMode) error {
	return safefs.ReplaceFrom(dst, src, perm)
}

// Stats describe the cache.
type Stats struct {
	Entries      int
	Bytes        int64
	Hits, Misses int
}

type entryInfo struct {
	path  string
	bytes int64
	used  time.Time
}

func (c *Cache) entries() ([]entryInfo, error) {
	var out []entryInfo
	shards, err := os.ReadDir(filepath.Join(c.Dir, "nvcc"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, shard := range shards {
		keys, _ := os.ReadDir(filepath.Join(c.Dir, "nvcc", shard.Name()))
		for _, k := range keys {
			if strings.HasPrefix(k.Name(), ".tmp-") {
				continue
			}
			p := filepath.Join(c.Dir, "nvcc", shard.Name(), k.Name())
			info, err := k.Info()
			if err != nil {
				continue
			}
			e := entryInfo{path: p, used: info.ModTime()}
			for _, f := range []string{outName, logName} {
				if st, err := os.Stat(filepath.Join(p, f)); err == nil {
					e.bytes += st.Size()
				}
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// Evict removes the least recently used entries until the cache holds at
// most MaxBytes.
func (c *Cache) Evict() error {
	if c.MaxBytes <= 0 {
		return nil
	}
	es, err := c.entries()
	if err != nil {
		return err
	}
	var total int64
	for _, e := range es {
		total += e.bytes
	}
	sort.Slice(es, func(i, j int) bool { return es[i].used.Before(es[j].used) })
	for _, e := range es {
		if total <= c.MaxBytes {
			break
		}
		if err := os.RemoveAll(e.path); err == nil {
			total -= e.bytes
		}
	}
	return nil
}

// Stats counts the entries and their bytes, and the hits and misses noted.
func (c *Cache) Stats() (Stats, error) {
	var s Stats
	es, err := c.entries()
	if err != nil {
		return s, err
	}
	s.Entries = len(es)
	for _, e := range es {
		s.Bytes += e.bytes
	}
	s.Hits, s.Misses = c.Counts()
	return s, nil
}

// Counts are the hits and misses noted, without counting the entries
// (Stats reads every entry: a run that only wants its own hits should
// not pay for the size of the whole cache).
func (c *Cache) Counts() (hits, misses int) {
	data, _ := os.ReadFile(filepath.Join(c.Dir, "stats"))
	return strings.Count(string(data), "h"), strings.Count(string(data), "m")
}

// Note records a hit or a miss, for Stats. Appends of one byte are atomic,
// so concurrent builds may note at once.
func (c *Cache) Note(hit bool) {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(c.Dir, "stats"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	if hit {
		f.WriteString("h")
	} else {
		f.WriteString("m")
	}
}

// Clean removes every entry and the counts.
func (c *Cache) Clean() error {
	if err := os.RemoveAll(filepath.Join(c.Dir, "nvcc")); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(c.Dir, "stats"))
}

// Report is lessons cache's account of c: where it is, its builds and
// bytes against its bound, and its hits and misses.
func (c *Cache) Report() (string, error) {
	s, err := c.Stats()
	if err != nil {
		return "", err
	}
	rate := 0.0
	if s.Hits+s.Misses > 0 {
		rate = 100 * float64(s.Hits) / float64(s.Hits+s.Misses)
	}
	return fmt.Sprintf("%s\n%d builds, %.1f MiB (bound %.0f MiB, set with LESSONS_CACHE_MAX)\n%d hits, %d misses (%.0f%% hit rate)\n",
		c.Dir, s.Entries, float64(s.Bytes)/(1<<20), float64(c.MaxBytes)/(1<<20), s.Hits, s.Misses, rate), nil
}
