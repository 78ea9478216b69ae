package install

import (
	"context"
	"errors"
	"os"
	"strconv"
	"time"
)

// launchdJob is the backstop as a launchd job with StartInterval: a
// LaunchDaemon, or a LaunchAgent for --user.
type launchdJob struct {
	s     Spec
	every time.Duration
}

func (launchdJob) kind() string    { return "launchd" }
func (j launchdJob) where() string { return launchdPath(j.s, BackstopName) }

func (j launchdJob) paths() []string { return []string{j.where()} }

func (j launchdJob) files() ([]File, error) {
	return []File{{Path: j.where(), Content: renderLaunchdBackstop(j.s, j.every), Mode: 0o644}}, nil
}

// domain is launchd's domain for the scope: system, or the user's GUI session.
func (j launchdJob) domain() string {
	if j.s.User {
		return "gui/" + strconv.Itoa(j.s.UID)
	}
	return "system"
}

func (j launchdJob) service() string { return j.domain() + "/" + BackstopName }

// register boots out a previous registration (ignored when there is none)
// and bootstraps the plist, so a second install picks up a changed file.
func (j launchdJob) register(ctx context.Context, r runner) error {
	_ = j.unregister(ctx, r)
	_, err := r.run(ctx, "launchctl", "bootstrap", j.domain(), j.where())
	return err
}

func (j launchdJob) runNow(ctx context.Context, r runner) error {
	_, err := r.run(ctx, "launchctl", "kickstart", j.service())
	return err
}

func (j launchdJob) unregister(ctx context.Context, r runner) error {
	_, err := r.run(ctx, "launchctl", "bootout", j.service())
	return err
}

func (launchdJob) afterRemove(context.Context, runner) error { return nil }

func (j launchdJob) registered(context.Context, runner) (bool, error) {
	_, err := os.Stat(host.path(j.where()))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (launchdJob) lastTrigger(context.Context, runner) time.Time { return time.Time{} }
