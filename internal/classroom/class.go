package classroom

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cudalessons/lessons/internal/buildcache"
	"github.com/cudalessons/lessons/internal/classroom/access"
	"github.com/cudalessons/lessons/internal/classroom/cells"
	"github.com/cudalessons/lessons/internal/classroom/queue"
	"github.com/cudalessons/lessons/internal/course"
	"github.com/cudalessons/lessons/internal/exercise"
	"github.com/cudalessons/lessons/internal/grade"
	"github.com/cudalessons/lessons/internal/gradebook"
	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/notebook"
	"github.com/cudalessons/lessons/internal/page"
	"github.com/cudalessons/lessons/internal/python"
	"github.com/cudalessons/lessons/internal/runner"
	"github.com/cudalessons/lessons/internal/safefs"
	"github.com/cudalessons/lessons/internal/sandbox"
	"github.com/cudalessons/lessons/internal/serve"
	"github.com/cudalessons/lessons/internal/tracer"
)

//go:embed assets
var assets embed.FS

// Config is a class server's setup.
type Config struct {
	Course *course.Course
	// Dir is the class's folder: the students' copies (students/ID/),
	// and, in .class/ (the server's alone), the keys, the audit log and
	// the gradebook.
	Dir    string
	Roster []Student
	// Site renders the course's pages (once: every student's server
	// shares them).
	Site func() (map[string][]byte, error)
	// Env is a lesson workspace's notebook environment (the nvcc
	// wrapper, the cache); its Runner is replaced by the class's.
	Env func(ws string) (notebook.Env, error)
	// Cells is the runner of a cell's command on a run slot: the sandbox.
	Cells func(ws string, slot int) runner.Runner
	// Toolchain builds and runs the exercises (grade's, in the sandbox).
	Toolchain  grade.Toolchain
	Jobs       int      // builds at once
	Devices    []string // the GPUs, as CUDA_VISIBLE_DEVICES names them
	PerDevice  int      // runs at once on each
	MaxQueued  int      // a student's runs queued or running at once; 0: no limit
	GPUPerHour time.Duration
	// DiskPerStudent is the most a student's folder may hold (their
	// copies, workspaces and cells' builds) for a cell to start; 0: no
	// limit.
	DiskPerStudent int64
	// FilesPerStudent is how many files (folders included) it may hold
	// for a cell to start; 0: 20,000; below 0: no limit.
	FilesPerStudent int
	Timeout         time.Duration // a cell's time limit
	// NoMemoryBound says why a cell's memory is not bounded (no cgroup
	// for its runs: RLIMIT_DATA counts no shared memory); "" when it is.
	// A class whose cells have no time limit is refused then: a cell
	// could hold the machine's memory for as long as the class runs.
	NoMemoryBound string
	// OwnWorkFS makes each student's workspaces (.work) a file system of
	// their own, of DiskPerStudent bytes and FilesPerStudent files, so
	// that those caps hold while a cell writes (sandbox.OwnFS; root, loop
	// devices and mkfs.ext4). Without it they are checked between runs.
	OwnWorkFS   bool
	MaxOutput   int64
	CompileOnly bool
	// Hosts are the names the server is reached by (beside IP addresses
	// and localhost).
	Hosts []string
	// ProxyHeader, when set, is the header that names the signed-in
	// person, trusted only on requests from the proxy: over a Unix
	// socket, or from ProxyAddr (an IP address); and, where ProxySecret
	// is set, with it as ProxySecretHeader.
	ProxyHeader, ProxyAddr, ProxySecret string
	// Served is the address the class is served on (the listener's):
	// Open refuses a header that this machine's users could forge on it.
	// nil: not checked.
	Served net.Addr
	// Instructors are who the proxy's header names as an instructor.
	Instructors []string
	// RunsRead are the folders every sandboxed run may read (nil:
	// sandbox.SystemRead): the class's folder and the course must lie
	// outside them.
	RunsRead []string
	// Python is the python3 that students' Python cells run with: in the
	// sandbox, through the queue, a run each cell (python.Replayed: the
	// cells above that ran run again first, for their state). nil: they
	// are not run, and each says so, with NoPython's why.
	Python   *python.Interpreter
	NoPython string
	// Hidden is what feedback says of hidden checks (gradebook.HiddenModes).
	Hidden string
	Clock  func() time.Time
	// SharedCache, when set, is where the server builds the cells' plain
	// nvcc steps before they queue, for every student's cells to read
	// (prebuild.go; buildcache's shared.go): in the class's folder, with
	// Compiler the nvcc of the cells. Nil: each student's cells build in
	// their own cache, on their run slot.
	SharedCache *buildcache.Cache
	Compiler    buildcache.Compiler
	// Trace, when set, gets a line for each run given a slot, with when
	// each of its phases began (Trace; $LESSONS_TRACE).
	Trace io.Writer
	// Workers, when set, names the machines the class's runs go to
	// besides this one (the pilots' workers on Slurm nodes), for the
	// instructor's view.
	Workers func() []string
}

// Class is a running class server (an http.Handler).
type Class struct {
	workMu      sync.Mutex
	workFS      []string // the .work folders mounted, unmounted at Close
	cfg         Config
	course      *course.Course
	studentsDir string
	private     string
	keys        *access.Keys
	audit       *access.Audit
	book        *gradebook.Book
	queue       *queue.Queue
	builds      *builds
	trace       *tracer.Tracer
	cells       *cells.Room
	limiter     *access.Limiter
	roster      map[string]Student
	byEmail     map[string]string

	siteOnce sync.Once
	site     map[string][]byte
	siteErr  error

	mu       sync.Mutex
	pages    map[string]*serve.Server
	tokens   map[string]string // each page's serve token
	activity map[string]*activity
	// submitting holds a lock for each student's exercise being submitted.
	submitting sync.Map
	countsMu   sync.Mutex
	// Stopped are the submissions ("who exercise") that a server killed
	// before this one never graded.
	Stopped []string
}

type activity struct {
	Last   time.Time         `json:"last"`
	What   string            `json:"what"`
	Checks map[string]string `json:"checks"` // exercise -> the last check's status
}

// PrivateDir is the class's own folder under Dir.
const PrivateDir = ".class"

// Open opens the class in cfg.Dir, making its folders the first time.
func Open(cfg Config) (*Class, error) {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Hidden == "" {
		cfg.Hidden = "summary"
	}
	if cfg.MaxOutput == 0 {
		// The runner's own cap, named: a page told "printed more than 0
		// bytes" when a cell's flood was cut.
		cfg.MaxOutput = 8 << 20
	}
	if err := checkProxyTrust(cfg); err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 && cfg.NoMemoryBound != "" {
		return nil, fmt.Errorf("a class whose cells have no time limit needs a memory limit that holds, and there is none here (no cgroups: %s): a cell could hold shared memory (which RLIMIT_DATA does not count) for as long as the class runs; give --timeout, or run the server where it may make cgroup v2 groups", cfg.NoMemoryBound)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	c := &Class{cfg: cfg, course: cfg.Course, studentsDir: StudentsDir(dir), private: filepath.Join(dir, PrivateDir),
		roster: map[string]Student{}, byEmail: map[string]string{}, pages: map[string]*serve.Server{}, tokens: map[string]string{}, activity: map[string]*activity{}}
	if rel, err := filepath.Rel(c.course.Root, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("class folder %s is inside the course %s: students' runs could then reach its solutions; put it elsewhere", dir, c.course.Root)
	}
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{dir, 0o711}, {c.private, 0o700}, {c.studentsDir, 0o711}} {
		if err := os.MkdirAll(d.path, d.mode); err != nil {
			return nil, fmt.Errorf("class folder: %w", err)
		}
		if st, err := os.Lstat(d.path); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("class folder %s is not a folder (a link?): remove it", d.path)
		}
		os.Chmod(d.path, d.mode)
	}
	if err := outsideRuns(cfg.RunsRead, dir, c.course.Root); err != nil {
		return nil, err
	}
	for _, s := range cfg.Roster {
		c.roster[s.ID] = s
		if s.Email != "" {
			c.byEmail[strings.ToLower(s.Email)] = s.ID
		}
	}
	c.keys = access.NewKeys(c.private, cfg.Clock)
	if c.audit, err = access.OpenAudit(filepath.Join(c.private, "audit.log"), cfg.Clock); err != nil {
		return nil, err
	}
	// Submissions a killed server never graded are reported stopped, to
	// the student's history (the audit log) and the instructor's view.
	stopped, err := access.Unfinished(filepath.Join(c.private, "audit.log"))
	if err != nil {
		c.audit.Close()
		return nil, err
	}
	for _, k := range stopped {
		who, x, _ := strings.Cut(k, " ")
		c.audit.Log(who, "", "submit stopped", x+": the server stopped before it was graded; submit again")
		c.Stopped = append(c.Stopped, k)
	}
	if c.book, err = gradebook.Open(filepath.Join(c.private, "gradebook.db")); err != nil {
		c.audit.Close()
		return nil, err
	}
	if err := c.setBook(); err != nil {
		c.Close()
		return nil, err
	}
	c.queue = queue.New(cfg.Devices, cfg.PerDevice, cfg.Clock)
	c.queue.MaxQueued, c.queue.Budget = cfg.MaxQueued, cfg.GPUPerHour
	c.builds = newBuilds(cfg.Jobs)
	if cfg.Trace != nil {
		c.trace = cells.NewTrace(cfg.Trace, cfg.Clock())
	}
	if c.cells, err = cells.New(cells.Config{Queue: c.queue, Env: cfg.Env, Cells: cfg.Cells, Python: cfg.Python, NoPython: cfg.NoPython, MaxOutput: cfg.MaxOutput,
		SharedCache: cfg.SharedCache, Compiler: cfg.Compiler, BuildsDir: filepath.Join(dir, "builds"), Jobs: cfg.Jobs,
		DiskPerStudent: cfg.DiskPerStudent, FilesPerStudent: cfg.FilesPerStudent, Clock: cfg.Clock, Trace: c.trace}); err != nil {
		c.Close()
		return nil, err
	}
	c.limiter = access.NewLimiter(10, 6*time.Second, cfg.Clock)
	return c, nil
}

// outsideRuns refuses a class folder or a course that every student's
// run may read (Landlock's read rules): a class under /opt would show
// each student's workspace and copies to the others, and to a server
// that is not root, the gradebook and the audit log; a course there, its
// solutions. Paths are compared as the links lead, as Landlock's are.
func outsideRuns(read []string, class, course string) error {
	for _, d := range []struct{ what, path string }{{"class folder", class}, {"course", course}} {
		r, err := sandbox.ReadByEveryRun(read, d.path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", d.what, d.path, err)
		}
		if r != "" {
			return fmt.Errorf("%s %s is inside %s, which every student's run may read: their files, the gradebook and the solutions would be open to all; put it elsewhere (/srv)", d.what, d.path, r)
		}
	}
	return nil
}

// setBook writes the course's exercises and the roster into the
// gradebook, so that its export lists every student and exercise.
func (c *Class) setBook() error {
	var xs []gradebook.Exercise
	for i, x := range c.course.Exercises {
		spec, err := exercise.LoadSpec(c.course, x)
		if err != nil {
			return err
		}
		xs = append(xs, gradebook.Exercise{ID: x.ID, Points: spec.Points, Position: i})
	}
	if err := c.book.SetExercises(xs); err != nil {
		return err
	}
	return c.book.SetPeople(c.cfg.Roster)
}

// Close closes the gradebook and the audit log.
func (c *Class) Close() error {
	c.workMu.Lock()
	var errs []error
	for _, dir := range c.workFS {
		errs = append(errs, sandbox.UnmountOwnFS(dir))
	}
	c.workFS = nil
	c.workMu.Unlock()
	return errors.Join(append(errs, c.book.Close(), c.audit.Close(), c.trace.Close())...)
}

// workDir is the folder of a student's workspaces, in dir (their
// folder): with OwnWorkFS, a file system of its own, its image kept in
// the class's private folder.
func (c *Class) workDir(id, dir string) error {
	work, err := safefs.Dir(dir, ".work")
	if err != nil || !c.cfg.OwnWorkFS || c.cfg.DiskPerStudent <= 0 {
		return err
	}
	c.workMu.Lock()
	defer c.workMu.Unlock()
	files := uint64(cells.FilesPerStudent)
	if c.cfg.FilesPerStudent > 0 {
		files = uint64(c.cfg.FilesPerStudent)
	}
	images, err := safefs.Dir(c.private, "work")
	if err != nil {
		return err
	}
	if err := sandbox.OwnFS(filepath.Join(images, id+".img"), work, c.cfg.DiskPerStudent, files); err != nil {
		return err
	}
	if !slices.Contains(c.workFS, work) {
		c.workFS = append(c.workFS, work)
	}
	return nil
}

// Keys are the class's sign-in links and sessions.
func (c *Class) Keys() *access.Keys { return c.keys }

// Book is the class's gradebook.
func (c *Class) Book() *gradebook.Book { return c.book }

// Queue is the class's run queue.
func (c *Class) Queue() *queue.Queue { return c.queue }

func (c *Class) siteMap() (map[string][]byte, error) {
	c.siteOnce.Do(func() { c.site, c.siteErr = c.cfg.Site() })
	return c.site, c.siteErr
}

// studentDir is a student's folder, made the first time.
func (c *Class) studentDir(id string) (string, error) {
	dir, err := safefs.Dir(c.studentsDir, id)
	if err == nil {
		// Reached by the runs' users (their workspaces), listed by none.
		err = os.Chmod(dir, 0o711)
	}
	return dir, err
}

// page is the student's own notebook server: serve's page, with their
// workspaces and exercises, reached only through the class's sign-in.
func (c *Class) page(id string) (*serve.Server, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.pages[id]; s != nil {
		return s, c.tokens[id]
	}
	s := serve.New(c.siteMap)
	tok := access.Secret()
	s.SetToken(tok)
	for _, h := range c.cfg.Hosts {
		if name, _, err := net.SplitHostPort(h); err == nil {
			h = name // the page's guard takes names; the port is the class's to check
		}
		s.AllowHost(h)
	}
	s.SetMaxStreams(4)
	s.SetNotebook(&serve.Notebook{
		Lesson: func(page string) (*lesson.Lesson, string, error) { return c.lesson(id, page) },
		Env: func(ws string) (notebook.Env, error) {
			dir, err := c.studentDir(id)
			if err != nil {
				return notebook.Env{}, err
			}
			return c.cells.Env(id, dir, ws)
		},
		Timeout: c.cfg.Timeout, MaxOutput: c.cfg.MaxOutput, CompileOnly: c.cfg.CompileOnly,
	})
	s.SetChecker(&studentChecker{c: c, id: id})
	s.SetPageScript(assetPath + "class.js")
	c.pages[id], c.tokens[id] = s, tok
	return s, tok
}

// lesson is a lesson of the course, with student id's workspace for it.
func (c *Class) lesson(id, page string) (*lesson.Lesson, string, error) {
	for _, e := range c.course.Lessons {
		if e.Name() != page {
			continue
		}
		l, err := c.course.Parse(e)
		if err != nil {
			return nil, "", err
		}
		dir, err := c.studentDir(id)
		if err != nil {
			return nil, "", err
		}
		if err := c.workDir(id, dir); err != nil {
			return nil, "", err
		}
		ws, err := safefs.Dir(dir, filepath.Join(".work", e.Name()))
		return l, ws, err
	}
	return nil, "", fmt.Errorf("%s is not a lesson of this course", page)
}

// exercise finds an exercise of the course by id.
func (c *Class) exercise(id string) (*course.Exercise, error) { return c.course.Exercise(id) }

// fileName is where, in the student's folder, their copy of x is: as
// lessons grade reads a class (grade.SubmittedFile).
func fileName(x *course.Exercise) string {
	return strings.TrimPrefix(filepath.ToSlash(x.Student), "exercises/")
}

// readCopy is the student's copy of x, made from the course's the first
// time.
func (c *Class) readCopy(id string, x *course.Exercise) ([]byte, error) {
	dir, err := c.studentDir(id)
	if err != nil {
		return nil, err
	}
	data, err := safefs.ReadFile(dir, fileName(x))
	if errors.Is(err, os.ErrNotExist) {
		if data, err = os.ReadFile(c.course.Path(x.Student)); err != nil {
			return nil, fmt.Errorf("the course's %s: %w", x.Student, err)
		}
		return data, safefs.WriteFile(dir, fileName(x), data, 0o600)
	}
	return data, err
}

// writeCopy replaces the student's copy of x, synced and renamed into
// place before it returns: an edit acknowledged is on disk.
func (c *Class) writeCopy(id string, x *course.Exercise, text string) error {
	if len(text) > grade.MaxSource {
		return fmt.Errorf("the file is %d bytes, over the limit of %d", len(text), grade.MaxSource)
	}
	dir, err := c.studentDir(id)
	if err != nil {
		return err
	}
	return safefs.WriteFile(dir, fileName(x), []byte(text), 0o600)
}

// touch notes what a student did last, for the instructor's view.
func (c *Class) touch(id, what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.activity[id]
	if a == nil {
		a = &activity{Checks: map[string]string{}}
		c.activity[id] = a
	}
	a.Last, a.What = c.cfg.Clock(), what
}

func (c *Class) noteCheck(id, x, status string) {
	c.noteStatus(id, "check "+x, x, status)
}

func (c *Class) noteStatus(id, what, x, status string) {
	c.touch(id, what)
	c.mu.Lock()
	c.activity[id].Checks[x] = status
	c.mu.Unlock()
}

// studentChecker is the page's Check for one student: their copy,
// through the class's queue and the grading sandbox, the hidden checks
// left out as lessons check leaves them.
type studentChecker struct {
	c  *Class
	id string
}

var _ serve.Checker = (*studentChecker)(nil)

func (s *studentChecker) Exercises(page string) ([]serve.Exercise, error) {
	var out []serve.Exercise
	for _, e := range s.c.course.Lessons {
		if e.Name() != page {
			continue
		}
		for _, x := range e.Exercises {
			a, ok, err := s.c.book.Latest(s.id, x.ID)
			if err != nil {
				return nil, err
			}
			s.c.mu.Lock()
			checked := s.c.activity[s.id] != nil && s.c.activity[s.id].Checks[x.ID] == gradebook.Passed
			s.c.mu.Unlock()
			out = append(out, serve.Exercise{ID: x.ID, Student: fileName(x), Passed: checked || ok && a.Status == gradebook.Passed, Hint: x.Hint()})
		}
	}
	return out, nil
}

func (s *studentChecker) Files() map[string][]string { return nil }

func (s *studentChecker) Check(ctx context.Context, id string) (*serve.Verdict, error) {
	x, err := s.c.exercise(id)
	if err != nil {
		return nil, err
	}
	if _, err := s.c.readCopy(s.id, x); err != nil {
		return nil, err
	}
	a, err := s.c.grade(ctx, s.id, x, false)
	if err != nil {
		return nil, err
	}
	spec, _ := exercise.LoadSpec(s.c.course, x)
	hidden := 0
	if spec != nil {
		hidden = spec.Hidden()
	}
	s.c.noteCheck(s.id, id, a.Status)
	return page.AttemptVerdict(x, a, hidden), nil
}

// remoteIP is the address a request came from, without its port.
func remoteIP(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}
