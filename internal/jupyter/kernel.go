// Package jupyter runs a lesson's Python cells in a real Jupyter kernel,
// as Jupyter does: the kernel named by a kernelspec (python3) is started
// with a connection file, and cells go to it over the Jupyter messaging
// protocol (ZeroMQ, through go-zeromq/zmq4, pure Go): execute_request on
// the shell channel, streams, results, displays and errors from iopub,
// an interrupt by signal, a shutdown_request on the control channel at
// the end.
package jupyter

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/go-zeromq/zmq4"

	"github.com/cudalessons/lessons/internal/lesson"
	"github.com/cudalessons/lessons/internal/python"
)

// Spec is a kernelspec: how to start a kernel.
type Spec struct {
	Name        string
	Dir         string
	Argv        []string `json:"argv"`
	DisplayName string   `json:"display_name"`
	Language    string   `json:"language"`
	// Env is added to the kernel's environment, as Jupyter adds it
	// (without its ${VAR} expansion).
	Env map[string]string `json:"env"`
}

// kernelDirs are where Jupyter looks for kernelspecs, in its order.
func kernelDirs() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("JUPYTER_PATH")) {
		if d != "" {
			dirs = append(dirs, filepath.Join(d, "kernels"))
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".local", "share", "jupyter", "kernels"))
	}
	return append(dirs, "/usr/local/share/jupyter/kernels", "/usr/share/jupyter/kernels")
}

// specNameRE is what jupyter_client accepts as a kernelspec's name.
var specNameRE = regexp.MustCompile(`^(?i)[a-z0-9._-]+$`)

// FindSpec finds the kernelspec called name (python3 for most
// notebooks) whose program is there. LESSONS_KERNEL=none finds none, so
// Python cells go through lessons' own driver.
func FindSpec(name string) (*Spec, error) {
	if os.Getenv("LESSONS_KERNEL") == "none" {
		return nil, errors.New("LESSONS_KERNEL=none")
	}
	// The name comes from a notebook: only what Jupyter allows a
	// kernelspec's folder to be called, never a path out of its folders.
	if !specNameRE.MatchString(name) {
		return nil, fmt.Errorf("%q is not a Jupyter kernel's name (letters, digits, . _ and - only)", name)
	}
	// . and .. pass jupyter_client's own check, but name the kernels'
	// folder or the one above it, not a kernel in it (.. read
	// share/jupyter/kernel.json, whose argv a run would start).
	if !filepath.IsLocal(name) || name == "." || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("%q is not a Jupyter kernel's name: it would name a folder outside the kernels' folders; set the notebook's kernelspec name to an installed kernel (jupyter kernelspec list)", name)
	}
	for _, d := range kernelDirs() {
		dir := filepath.Join(d, name)
		data, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
		if err != nil {
			continue
		}
		var s Spec
		if err := json.Unmarshal(data, &s); err != nil || len(s.Argv) == 0 {
			continue
		}
		if _, err := exec.LookPath(s.Argv[0]); err != nil {
			continue
		}
		s.Name, s.Dir = name, dir
		return &s, nil
	}
	return nil, fmt.Errorf("no Jupyter kernel %s installed (looked in %s)", name, strings.Join(kernelDirs(), ", "))
}

// Way says how cells run in this kernel, for run, show and the page.
func (s *Spec) Way() string {
	name := s.DisplayName
	if name == "" {
		name = s.Name
	}
	return fmt.Sprintf("the Jupyter kernel %s: %s", s.Name, name)
}

// Kernel is a running kernel and the client's sockets.
type Kernel struct {
	spec    *Spec
	proc    *python.Process
	key     []byte
	session string
	shell   zmq4.Socket
	control zmq4.Socket
	iopub   zmq4.Socket
	conn    string // the connection file
	iomsgs  chan *message
	replies chan *message
}

type header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

type message struct {
	Header  header
	Parent  header
	Content map[string]any
}

// pickPorts picks the kernel's ports (a test takes one first).
var pickPorts = freePorts

func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Start starts the kernel in dir with env and connects to it; the kernel
// is ready when it answers a kernel_info_request. The kernel binds the
// ports picked for it only once it runs: a kernel that ends because
// another program took one meanwhile (on a busy machine, its servers and
// connections draw from the same ports) is started again on others.
func Start(ctx context.Context, spec *Spec, dir string, env []string) (*Kernel, error) {
	for try := 1; ; try++ {
		k, err := startOnce(ctx, spec, dir, env)
		if !errors.Is(err, errPortTaken) || try == 5 {
			return k, err
		}
	}
}

// errPortTaken is startOnce's error when the kernel could not bind a port
// picked for it.
var errPortTaken = errors.New("a port picked for it was taken before it started")

func startOnce(ctx context.Context, spec *Spec, dir string, env []string) (*Kernel, error) {
	ports, err := pickPorts(5)
	if err != nil {
		return nil, err
	}
	k := &Kernel{spec: spec, key: []byte(randomHex(16)), session: randomHex(8), iomsgs: make(chan *message, 256), replies: make(chan *message, 64)}
	conn := map[string]any{
		"transport": "tcp", "ip": "127.0.0.1", "key": string(k.key), "signature_scheme": "hmac-sha256",
		"shell_port": ports[0], "iopub_port": ports[1], "stdin_port": ports[2], "control_port": ports[3], "hb_port": ports[4],
		"kernel_name": spec.Name,
	}
	f, err := os.CreateTemp("", "lessons-kernel-*.json")
	if err != nil {
		return nil, err
	}
	k.conn = f.Name()
	data, _ := json.Marshal(conn)
	f.Write(data)
	f.Close()
	argv := make([]string, len(spec.Argv))
	for i, a := range spec.Argv {
		argv[i] = strings.ReplaceAll(a, "{connection_file}", k.conn)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	// JPY_PARENT_PID: the kernel ends itself if lessons dies without
	// shutting it down (its own process group gets no Ctrl-C).
	cmd.Dir, cmd.Env = dir, append(slices.Clip(env), "MPLBACKEND=module://matplotlib_inline.backend_inline", fmt.Sprintf("JPY_PARENT_PID=%d", os.Getpid()))
	for k, v := range spec.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var startErr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &limited{w: &startErr, left: 4096}
	if k.proc, err = python.StartProcess(cmd, "the Jupyter kernel"); err != nil {
		os.Remove(k.conn)
		return nil, fmt.Errorf("start the Jupyter kernel %s (%s): %w", spec.Name, argv[0], err)
	}
	if err := k.waitListening(ctx, ports[0], ports[1], ports[3]); err != nil {
		k.proc.Kill("it did not listen")
		os.Remove(k.conn)
		said := strings.TrimSpace(startErr.String())
		if strings.Contains(said, "Address already in use") {
			err = fmt.Errorf("%w: %w", errPortTaken, err)
		}
		return nil, fmt.Errorf("connect to the Jupyter kernel %s: %w; it said: %s", spec.Name, err, said)
	}
	// The sockets live as long as the kernel, not as the request that
	// started it.
	sctx := context.Background()
	opts := []zmq4.Option{zmq4.WithDialerRetry(50 * time.Millisecond), zmq4.WithDialerMaxRetries(200), zmq4.WithAutomaticReconnect(false)}
	k.shell = zmq4.NewDealer(sctx, append(opts, zmq4.WithID(zmq4.SocketIdentity("shell-"+k.session)))...)
	k.control = zmq4.NewDealer(sctx, append(opts, zmq4.WithID(zmq4.SocketIdentity("control-"+k.session)))...)
	k.iopub = zmq4.NewSub(sctx, opts...)
	ep := func(p int) string { return fmt.Sprintf("tcp://127.0.0.1:%d", p) }
	for _, d := range []struct {
		s    zmq4.Socket
		port int
	}{{k.shell, ports[0]}, {k.iopub, ports[1]}, {k.control, ports[3]}} {
		if err := d.s.Dial(ep(d.port)); err != nil {
			k.kill()
			return nil, fmt.Errorf("connect to the Jupyter kernel %s: %w; it said: %s", spec.Name, err, strings.TrimSpace(startErr.String()))
		}
	}
	if err := k.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		k.kill()
		return nil, err
	}
	go k.readIOPub()
	go k.readShell()
	// iopub is a PUB socket: what it sends before our subscription has
	// reached it is lost. kernel_info_request until one answer comes on
	// shell and its status on iopub shows the subscription works.
	deadline := time.Now().Add(60 * time.Second)
	for {
		id, err := k.send(k.shell, "kernel_info_request", map[string]any{})
		if err != nil {
			k.kill()
			return nil, err
		}
		if _, err := k.reply(ctx, id, 2*time.Second); err == nil && k.sawIdle(id, time.Second) {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			k.kill()
			return nil, fmt.Errorf("the Jupyter kernel %s did not answer within 60 s; it said: %s", spec.Name, strings.TrimSpace(startErr.String()))
		}
	}
	return k, nil
}

// startWait is the longest a kernel may take to listen: a few seconds
// on an idle machine, many more on a busy one.
const startWait = 60 * time.Second

// waitListening waits until the kernel listens on each of ports (the
// sockets dial once, a few retries: a kernel that starts slowly, on a
// busy machine, was refused), or it ends, or ctx is done.
func (k *Kernel) waitListening(ctx context.Context, ports ...int) error {
	deadline := time.Now().Add(startWait)
	for _, p := range ports {
		addr := fmt.Sprintf("127.0.0.1:%d", p)
		for {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("it did not listen on %s within %s", addr, startWait)
			}
			select {
			case <-k.proc.Exited():
				return fmt.Errorf("it ended before it listened on %s", addr)
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}

// sawIdle waits for the iopub status idle of request id.
func (k *Kernel) sawIdle(id string, wait time.Duration) bool {
	t := time.After(wait)
	for {
		select {
		case m := <-k.iomsgs:
			if m.Parent.MsgID == id && m.Header.MsgType == "status" && m.Content["execution_state"] == "idle" {
				return true
			}
		case <-t:
			return false
		}
	}
}

type limited struct {
	w    io.Writer
	left int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.left > 0 {
		n := min(len(p), l.left)
		l.w.Write(p[:n])
		l.left -= n
	}
	return len(p), nil
}

func (k *Kernel) sign(parts ...[]byte) string {
	h := hmac.New(sha256.New, k.key)
	for _, p := range parts {
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (k *Kernel) send(s zmq4.Socket, typ string, content any) (string, error) {
	h := header{MsgID: randomHex(16), Session: k.session, Username: "lessons", Date: time.Now().UTC().Format(time.RFC3339Nano), MsgType: typ, Version: "5.3"}
	hb, _ := json.Marshal(h)
	cb, _ := json.Marshal(content)
	parent, meta := []byte("{}"), []byte("{}")
	msg := zmq4.NewMsgFrom([]byte("<IDS|MSG>"), []byte(k.sign(hb, parent, meta, cb)), hb, parent, meta, cb)
	if err := s.SendMulti(msg); err != nil {
		return "", fmt.Errorf("send %s to the Jupyter kernel: %w", typ, err)
	}
	return h.MsgID, nil
}

// decode reads a message's frames, checking its signature.
func (k *Kernel) decode(frames [][]byte) (*message, error) {
	i := 0
	for i < len(frames) && string(frames[i]) != "<IDS|MSG>" {
		i++
	}
	if len(frames) < i+6 {
		return nil, errors.New("a message with too few parts")
	}
	sig, hb, pb, mb, cb := frames[i+1], frames[i+2], frames[i+3], frames[i+4], frames[i+5]
	if !hmac.Equal(sig, []byte(k.sign(hb, pb, mb, cb))) {
		return nil, errors.New("a message with a bad signature")
	}
	m := &message{}
	if err := json.Unmarshal(hb, &m.Header); err != nil {
		return nil, err
	}
	_ = json.Unmarshal(pb, &m.Parent)
	if err := json.Unmarshal(cb, &m.Content); err != nil {
		return nil, err
	}
	return m, nil
}

func (k *Kernel) readIOPub() {
	for {
		msg, err := k.iopub.Recv()
		if err != nil {
			close(k.iomsgs)
			return
		}
		if m, err := k.decode(msg.Frames); err == nil {
			k.iomsgs <- m
		}
	}
}

func (k *Kernel) readShell() {
	for {
		msg, err := k.shell.Recv()
		if err != nil {
			close(k.replies)
			return
		}
		if m, err := k.decode(msg.Frames); err == nil {
			select {
			case k.replies <- m:
			default: // a reply no one waits for (execute_reply)
			}
		}
	}
}

// reply waits for the shell's reply to request id.
func (k *Kernel) reply(ctx context.Context, id string, wait time.Duration) (*message, error) {
	t := time.After(wait)
	for {
		select {
		case m, ok := <-k.replies:
			if !ok {
				return nil, errors.New("the shell channel closed")
			}
			if m.Parent.MsgID == id {
				return m, nil
			}
		case <-t:
			return nil, errors.New("no reply")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Run runs a cell in the kernel: what it prints goes to out as it comes,
// tracebacks included; results and displays with an image come back as
// outputs (their text is printed too). At the time limit or when ctx ends
// the kernel is interrupted (SIGINT, its interrupt_mode signal), and
// killed if the cell does not stop within a few seconds.
func (k *Kernel) Run(ctx context.Context, n int, code string, out io.Writer, timeout time.Duration) (*python.Result, error) {
	if err := k.proc.Err(); err != nil {
		return nil, err
	}
	id, err := k.send(k.shell, "execute_request", map[string]any{
		// cell 0 is lessons' own code (what a ! cell's line expands to
		// in the notebook's namespace): it takes no number of the history
		"code": code, "silent": false, "store_history": n > 0, "user_expressions": map[string]any{},
		"allow_stdin": false, "stop_on_error": false, // the run decides whether to go on
	})
	if err != nil {
		return nil, err
	}
	res := &python.Result{OK: true}
	var busy string // the date of the kernel's status busy
	w := k.proc.Watch(ctx, timeout)
	defer w.Stop()
	ended := func() (*python.Result, error) {
		res.OK, res.TimedOut, res.Canceled = false, w.TimedOut, w.Canceled
		return res, k.proc.Err()
	}
	for {
		select {
		case m, ok := <-k.iomsgs:
			if !ok {
				if k.proc.Err() != nil {
					return ended() // the kernel's end closed it
				}
				return res, errors.New("the Jupyter kernel's iopub channel closed")
			}
			if m.Parent.MsgID != id {
				continue
			}
			switch m.Header.MsgType {
			case "stream":
				// ! lines run on a pty in IPython: lines end in \r\n
				fmt.Fprint(out, strings.ReplaceAll(str(m.Content["text"]), "\r\n", "\n"))
			case "execute_result", "display_data":
				data, _ := m.Content["data"].(map[string]any)
				o := lesson.Output{Type: m.Header.MsgType, Text: str(data["text/plain"])}
				for _, mime := range []string{"image/png", "image/jpeg", "image/svg+xml"} {
					if d, ok := data[mime]; ok {
						o.MIME, o.Data = mime, strings.TrimSpace(str(d))
						if mime == "image/svg+xml" { // sent as text, not base64
							o.Data = base64.StdEncoding.EncodeToString([]byte(str(d)))
						}
						break
					}
				}
				if o.MIME != "" {
					res.Outputs = append(res.Outputs, o)
				} else if o.Text != "" {
					fmt.Fprintln(out, o.Text)
					if m.Header.MsgType == "execute_result" {
						res.Outputs = append(res.Outputs, o)
					}
				}
			case "error":
				res.OK = false
				res.Ename, res.Evalue = str(m.Content["ename"]), str(m.Content["evalue"])
				var tb []string
				for _, l := range asList(m.Content["traceback"]) {
					tb = append(tb, str(l))
				}
				// IPython colours its tracebacks; the run's output is text,
				// as the driver's is.
				fmt.Fprintln(out, ansi.Strip(strings.Join(tb, "\n")))
			case "status":
				if m.Content["execution_state"] == "busy" {
					busy = m.Header.Date
				}
				if m.Content["execution_state"] == "idle" {
					res.Busy = span(busy, m.Header.Date)
					res.TimedOut, res.Canceled = w.TimedOut, w.Canceled
					res.OK = res.OK && !w.Stopped()
					return res, nil
				}
			}
		case <-w.Limit:
			w.Expire()
		case <-w.Done:
			w.Cancel()
		case <-w.Kill:
			w.KillNow()
		case <-k.proc.Exited():
			// nothing more comes for this cell
			return ended()
		}
	}
}

// span is the time from one message's date to another's; 0 where either
// does not read.
func span(from, to string) time.Duration {
	a, err1 := time.Parse(time.RFC3339Nano, from)
	b, err2 := time.Parse(time.RFC3339Nano, to)
	if err1 != nil || err2 != nil || b.Before(a) {
		return 0
	}
	return b.Sub(a)
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, s := range v {
			b.WriteString(str(s))
		}
		return b.String()
	}
	return ""
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// Alive reports whether the kernel still runs.
func (k *Kernel) Alive() bool { return k.proc.Alive() }

// Close shuts the kernel down (shutdown_request on control), and kills
// it if it has not ended within the grace.
func (k *Kernel) Close() error {
	if _, err := k.send(k.control, "shutdown_request", map[string]any{"restart": false}); err == nil {
		k.proc.End()
	}
	k.kill()
	return nil
}

// kill kills the kernel if it still runs, and closes the client's side.
func (k *Kernel) kill() {
	select {
	case <-k.proc.Exited():
	default:
		k.proc.Kill("it was shut down")
	}
	k.shell.Close()
	k.control.Close()
	k.iopub.Close()
	os.Remove(k.conn)
}
