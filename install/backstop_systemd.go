package install

import (
	"context"
	"errors"
	"os"
	"time"
)

// systemdTimer is the backstop as a systemd timer and oneshot service.
type systemdTimer struct {
	s     Spec
	every time.Duration
}

func (systemdTimer) kind() string { return "systemd-timer" }

func (t systemdTimer) where() string { return systemdUnitPath(t.s, BackstopName+".timer") }

func (t systemdTimer) paths() []string {
	return []string{systemdUnitPath(t.s, BackstopName+".service"), t.where()}
}

func (t systemdTimer) files() ([]File, error) {
	svc, timer := renderSystemdBackstop(t.s, t.every)
	return []File{
		{Path: systemdUnitPath(t.s, BackstopName+".service"), Content: svc, Mode: 0o644},
		{Path: t.where(), Content: timer, Mode: 0o644},
	}, nil
}

// systemctl is argv for systemctl in the spec's scope.
func (t systemdTimer) systemctl(args ...string) []string {
	argv := []string{"systemctl"}
	if t.s.User {
		argv = append(argv, "--user")
	}
	return append(argv, args...)
}

func (t systemdTimer) register(ctx context.Context, r runner) error {
	if _, err := r.run(ctx, t.systemctl("daemon-reload")...); err != nil {
		return err
	}
	_, err := r.run(ctx, t.systemctl("enable", "--now", BackstopName+".timer")...)
	return err
}

// runNow starts the oneshot and returns when it has finished.
func (t systemdTimer) runNow(ctx context.Context, r runner) error {
	_, err := r.run(ctx, t.systemctl("start", BackstopName+".service")...)
	return err
}

func (t systemdTimer) unregister(ctx context.Context, r runner) error {
	_, err := r.run(ctx, t.systemctl("disable", "--now", BackstopName+".timer")...)
	return err
}

func (t systemdTimer) afterRemove(ctx context.Context, r runner) error {
	_, err := r.run(ctx, t.systemctl("daemon-reload")...)
	return err
}

func (t systemdTimer) registered(context.Context, runner) (bool, error) {
	_, err := os.Stat(host.path(t.where()))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// lastTrigger asks systemd when the timer last fired ("@1733000000", or the
// default format where systemd ignores --timestamp for `show`).
func (t systemdTimer) lastTrigger(ctx context.Context, r runner) time.Time {
	out, err := r.run(ctx, t.systemctl("show", "--property=LastTriggerUSec", "--value", "--timestamp=unix", BackstopName+".timer")...)
	if err != nil {
		return time.Time{}
	}
	return parseSystemdTime(string(out))
}
