package exercise

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// A second check of one exercise in one course waits for the first (the
// workspace holds one program), and gives up when its context ends.
func TestWorkspaceLock(t *testing.T) {
	root := t.TempDir()
	j := &Job{ID: "x", Dir: filepath.Join(root, ".lessons", "check", "x"), Root: root}
	release, err := lockWorkspace(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		r2, err := lockWorkspace(context.Background(), j)
		if err == nil {
			r2()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("the second check went on while the first held the workspace (err %v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if err := <-got; err != nil {
		t.Fatalf("the second check after the first: %v", err)
	}
	release, _ = lockWorkspace(context.Background(), j)
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lockWorkspace(ctx, j); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled wait = %v, want context.Canceled", err)
	}
}
