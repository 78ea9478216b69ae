package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// cronFile is the backstop as /etc/cron.d/svc-ctl-backstop, where systemd
// is not the init system.
type cronFile struct {
	s     Spec
	every time.Duration
}

func (cronFile) kind() string     { return "cron" }
func (cronFile) where() string    { return "/etc/cron.d/" + BackstopName }
func (c cronFile) argv() []string { return append([]string{c.s.Exe}, c.s.BackstopArgs()...) }

func (c cronFile) paths() []string { return []string{c.where()} }

// files: cron runs the line through /bin/sh, so every word must be plain (no
// quoting, no shell syntax): paths that need quoting are refused.
func (c cronFile) files() ([]File, error) {
	sched, err := cronSchedule(c.every)
	if err != nil {
		return nil, err
	}
	if err := cronSafe("the svc-ctl binary path", c.s.Exe); err != nil {
		return nil, err
	}
	if err := cronSafe("the config path", c.s.ConfigPath); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", backstopHeader)
	fmt.Fprintf(&b, "# Every %s, independent of the agent: start every configured service that is down.\n", human(c.every))
	b.WriteString("SHELL=/bin/sh\n")
	b.WriteString("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n")
	fmt.Fprintf(&b, "%s root %s\n", sched, strings.Join(c.argv(), " "))
	return []File{{Path: c.where(), Content: b.String(), Mode: 0o644}}, nil
}

// cronSchedule writes every as a cron schedule: minutes that divide an hour,
// or hours that divide a day.
func cronSchedule(every time.Duration) (string, error) {
	m := int(every / time.Minute)
	switch {
	case every%time.Minute != 0:
	case m == 1:
		return "* * * * *", nil
	case m < 60 && 60%m == 0:
		return fmt.Sprintf("*/%d * * * *", m), nil
	case m == 24*60:
		return "0 0 * * *", nil
	case m%60 == 0 && (24*60)%m == 0:
		return fmt.Sprintf("0 */%d * * *", m/60), nil
	}
	return "", fmt.Errorf("--every %s cannot be written as a cron schedule: use minutes that divide an hour (1m 2m 3m 4m 5m 6m 10m 12m 15m 20m 30m) or hours that divide a day", every)
}

// register: cron reads /etc/cron.d by itself.
func (cronFile) register(context.Context, runner) error { return nil }

// runNow runs the line's command directly (argv, no shell), as cron would.
func (c cronFile) runNow(ctx context.Context, r runner) error {
	_, err := r.run(ctx, c.argv()...)
	return err
}

func (cronFile) unregister(context.Context, runner) error  { return nil }
func (cronFile) afterRemove(context.Context, runner) error { return nil }

func (c cronFile) registered(context.Context, runner) (bool, error) {
	_, err := os.Stat(host.path(c.where()))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (cronFile) lastTrigger(context.Context, runner) time.Time { return time.Time{} }

// errNoCronDaemon: the file is in place but nothing will read it.
var errNoCronDaemon = errors.New("no cron daemon is running: the backstop will not run again until one does (install and start cron, e.g. `apt-get install cron`)")

// checkDaemon says whether a cron daemon runs, where that can be known.
func (cronFile) checkDaemon() error {
	running, known := cronDaemonRunning()
	if known && !running {
		return errNoCronDaemon
	}
	return nil
}
