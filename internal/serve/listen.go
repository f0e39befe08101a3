package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// Listen listens on addr and sets who may reach the server there: the
// token ($LESSONS_SERVE_TOKEN, or the one made), and the names it may be
// reached by. It returns the URL to open, which carries the token
// (?token=) as Jupyter's does: every request needs it, on loopback too.
func (s *Server) Listen(addr string) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("cannot listen on %s: %w; choose another with --addr HOST:PORT", addr, err)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		ln.Close()
		return nil, "", fmt.Errorf("serve --addr %s: %w", addr, err)
	}
	if t := os.Getenv("LESSONS_SERVE_TOKEN"); t != "" {
		s.SetToken(t)
	}
	if host != "" && net.ParseIP(host) == nil {
		s.AllowHost(host)
	}
	ip := net.ParseIP(host)
	shown := ln.Addr().String()
	if host == "" || ip != nil && ip.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			s.AllowHost(name)
			_, port, _ := net.SplitHostPort(shown)
			shown = net.JoinHostPort(name, port)
		}
	}
	return ln, "http://" + shown + "/?token=" + url.QueryEscape(s.Token()), nil
}

// Serve serves the site on ln until ctx ends: pages rebuilt as sw sees
// their files change, exercises checked again when saved (polled, and
// debounced, as sw's files are). started is called once both are under way; logf
// says what happens, errf what goes wrong.
func (s *Server) Serve(ctx context.Context, ln net.Listener, sw *SiteWatch, started func(), logf, errf func(string, ...any)) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln); cancel() }()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if err := s.WatchExercises(ctx, sw.poll, sw.debounce, logf); err != nil {
			errf("lessons: exercises are not re-checked on save: %v", err)
		}
	}()
	started()
	werr := sw.Run(ctx, s, logf, errf)
	hs.Close()
	err := <-served
	cancel()
	<-watched // a verdict given as the server stops is told
	if werr != nil {
		return werr
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
