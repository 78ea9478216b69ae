package state

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"svcctl/internal/fsutil"
)

// ServiceLock is the per-service OS file lock that every svc-ctl process
// shares: the agent and any number of `svc-ctl start` never run two cycles of
// one service at once. The OS drops it when a holder dies.
type ServiceLock struct{ fl *flock.Flock }

// TryLock takes the lock at path without waiting; ok is false when someone
// holds it.
func TryLock(path string) (*ServiceLock, bool, error) {
	if err := fsutil.EnsurePrivateDir(filepath.Dir(path)); err != nil {
		return nil, false, fmt.Errorf("create service dir: %w", err)
	}
	fl := newFlock(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, false, nil
	}
	return &ServiceLock{fl: fl}, true, nil
}

// WaitLock polls for the lock until wait has passed. A manual start waits for
// a cycle in progress instead of reporting lock-held: the person asked for a
// running service, and the cycle that holds the lock is about to give one.
func WaitLock(ctx context.Context, path string, wait time.Duration) (*ServiceLock, bool, error) {
	deadline := time.Now().Add(wait)
	delay := 5 * time.Millisecond
	for {
		l, ok, err := TryLock(path)
		if err != nil || ok {
			return l, ok, err
		}
		if time.Now().After(deadline) {
			return nil, false, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-time.After(delay):
		}
		if delay < 100*time.Millisecond {
			delay *= 2
		}
	}
}

// Unlock releases the lock; a nil lock is fine.
func (l *ServiceLock) Unlock() {
	if l != nil {
		_ = l.fl.Unlock()
	}
}

// newFlock is a lock file opened without following a link: a planted
// services/NAME/lock link would have root create a file at any path.
func newFlock(path string) *flock.Flock {
	return flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDONLY|fsutil.NoFollow), flock.SetPermissions(0o600))
}
