// Package browsertest starts a headless Chromium for tests of the pages
// lessons serves and exports, driven through the DevTools protocol
// (chromedp: pure Go, no driver binary, no browser download).
//
// Under go test -short the test is skipped: the quick suite leaves the
// browser to the whole one. Where no Chromium is installed the test is
// skipped too, except under CI (CI=true), where a missing browser fails
// the test: .ci/run installs Debian's chromium, so a skip there would
// hide a broken install.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path returns the Chromium executable: $LESSONS_CHROMIUM, else the first
// of chromium, chromium-browser, google-chrome on PATH; "" if none.
func Path() string {
	if p := os.Getenv("LESSONS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Options size the browser window.
type Options struct {
	Width, Height int           // the window; 1280x900 when zero
	Timeout       time.Duration // the whole test's browser time; 60s when zero
	// Flags are more Chromium switches, such as host-resolver-rules for a
	// name that points at the test's server.
	Flags map[string]any
}

// New starts a headless Chromium with an empty profile and returns a
// context for chromedp actions on its first tab. The browser is closed when
// the test ends. Network access beyond loopback is not needed and is kept
// quiet (no background networking, sync or component updates), which the
// closed networks of CI machines require.
func New(t testing.TB, o Options) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browsertest: a headless Chromium takes seconds to start and drive; go test -short leaves the browser tests to the whole suite")
	}
	path := Path()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("browsertest: no Chromium found (install Debian's chromium, or set LESSONS_CHROMIUM)")
		}
		t.Skip("browsertest: no Chromium found (install chromium, or set LESSONS_CHROMIUM)")
	}
	if o.Width == 0 {
		o.Width, o.Height = 1280, 900
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(o.Width, o.Height),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
	)
	for name, v := range o.Flags {
		opts = append(opts, chromedp.Flag(name, v))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	// The first action starts the browser, and the browser lives as long
	// as that action's context: it must not carry the timeout.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("browsertest: start %s: %v", path, err)
	}
	tctx, cancelTime := context.WithTimeout(ctx, o.Timeout)
	t.Cleanup(cancelTime)
	return tctx
}
