package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"svcctl/state"
)

// DefaultBackstopEvery is how often the backstop runs unless --every says.
const DefaultBackstopEvery = 10 * time.Minute

// File is one file the backstop writes.
type File struct {
	Path    string      // absolute, as on the target
	Content string      // exact bytes (Windows task XML: before UTF-16 encoding)
	Mode    os.FileMode // permission bits
	// Temp marks a file that only feeds registration (the Windows task XML):
	// written to a temporary file, handed to schtasks, removed.
	Temp bool
}

// scheduler is one kind of OS scheduler the backstop can be registered
// with. One file per kind (backstop_*.go), one signature for all.
type scheduler interface {
	kind() string
	where() string                                  // the file or task name people look for
	files() ([]File, error)                         // pure: what is written
	paths() []string                                // the files it owns (removed on uninstall)
	register(ctx context.Context, r runner) error   // after the files are written
	runNow(ctx context.Context, r runner) error     // run it once, now
	unregister(ctx context.Context, r runner) error // before the files are removed; "not registered" is fine
	afterRemove(ctx context.Context, r runner) error
	registered(ctx context.Context, r runner) (bool, error)
	lastTrigger(ctx context.Context, r runner) time.Time  // zero where the scheduler keeps none
	interval(ctx context.Context, r runner) time.Duration // as registered; zero when unreadable
}

// BackstopPlan is the rendered backstop for one target.
type BackstopPlan struct {
	Spec  Spec
	Every time.Duration
	Kind  string // systemd-timer | cron | launchd | task-scheduler
	Where string
	Files []File
	// Services are the configured services' names: the first run must show
	// a cycle of each in watchdog.last.json.
	Services []string
	// Wait bounds how long ApplyBackstop waits for the first run's evidence.
	Wait  time.Duration
	sched scheduler
}

// RenderBackstop renders the backstop for target t: a pure function of its
// arguments.
func RenderBackstop(s Spec, t Target, every time.Duration) (*BackstopPlan, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	if every < time.Minute || every%time.Minute != 0 {
		return nil, fmt.Errorf("--every %s: use whole minutes, at least 1m", every)
	}
	sched, err := newScheduler(s, t, every)
	if err != nil {
		return nil, err
	}
	files, err := sched.files()
	if err != nil {
		return nil, err
	}
	return &BackstopPlan{Spec: s, Every: every, Kind: sched.kind(), Where: sched.where(), Files: files, Wait: 30 * time.Second, sched: sched}, nil
}

func newScheduler(s Spec, t Target, every time.Duration) (scheduler, error) {
	switch {
	case t.Platform == "linux-systemd":
		return systemdTimer{s, every}, nil
	case t.GOOS == "linux":
		if s.User {
			return nil, fmt.Errorf("--user --backstop needs systemd (a user timer) and this host uses %s: register the system backstop as root instead", t.Platform)
		}
		return cronFile{s, every}, nil
	case t.Platform == "darwin-launchd":
		return launchdJob{s, every}, nil
	case t.Platform == "windows-service":
		return schedTask{s, every}, nil
	}
	return nil, fmt.Errorf("no scheduler svc-ctl can register a backstop with on %s (%s)", t.GOOS, t.Platform)
}

// BackstopRequest is what `svc-ctl install --backstop` was asked for.
type BackstopRequest struct {
	ConfigFlag string
	User       bool
	Exe        string
	Every      time.Duration // 0 = DefaultBackstopEvery
	Wait       time.Duration // for the first run's evidence; 0 = 30s
}

// BackstopResult says what InstallBackstop did.
type BackstopResult struct {
	Result
	Kind    string    `json:"kind"`
	Every   string    `json:"every"`
	LastRun time.Time `json:"last_run,omitzero"` // the first run's newest cycle, from watchdog.last.json
}

// NewBackstopPlan checks req like NewPlan (scope, config, binary) and renders.
func NewBackstopPlan(req BackstopRequest) (*BackstopPlan, error) {
	if err := checkScope(req.User); err != nil {
		return nil, err
	}
	cfg, _, err := loadConfig(req.ConfigFlag, req.User)
	if err != nil {
		return nil, err
	}
	if len(cfg.Services) == 0 {
		return nil, &ConfigError{fmt.Errorf("%s has no [[service]]: the backstop would have nothing to start", cfg.Path)}
	}
	spec, err := newSpec(cfg, req.User, req.Exe)
	if err != nil {
		return nil, err
	}
	every := req.Every
	if every == 0 {
		every = DefaultBackstopEvery
	}
	p, err := RenderBackstop(spec, host.target(), every)
	if err != nil {
		return nil, &UsageError{err}
	}
	if req.Wait > 0 {
		p.Wait = req.Wait
	}
	for _, s := range cfg.Services {
		p.Services = append(p.Services, s.Name)
	}
	return p, nil
}

// InstallBackstop checks req, then registers the backstop and proves it
// runs (ApplyBackstop).
func InstallBackstop(ctx context.Context, req BackstopRequest) (BackstopResult, error) {
	p, err := NewBackstopPlan(req)
	if err != nil {
		return BackstopResult{}, err
	}
	return ApplyBackstop(ctx, p)
}

// ApplyBackstop writes and registers the backstop (idempotently: a second
// apply rewrites and re-registers), runs it once, and checks that
// watchdog.last.json shows that run's cycles within p.Wait. Registered is not
// running: when the evidence does not come, or (cron) no cron daemon runs,
// it returns an error and leaves the registration in place.
func ApplyBackstop(ctx context.Context, p *BackstopPlan) (BackstopResult, error) {
	res := BackstopResult{Kind: p.Kind, Every: human(p.Every)}
	res.Platform, res.Scope, res.Path = host.target().Platform, p.Spec.Scope(), p.Where
	res.Command = append([]string{p.Spec.Exe}, p.Spec.BackstopArgs()...)
	err := checkExe(p.Spec.Exe)
	if err == nil && !p.Spec.User {
		err = checkExeTrusted(p.Spec.Exe)
	}
	if err != nil {
		return res, &UsageError{err}
	}
	evidence := state.Paths{State: p.Spec.StateDir}.WatchdogLast()
	mtimeBefore, since := modTime(evidence), time.Now()
	if err := writeFiles(p.Files); err != nil {
		return res, err
	}
	if err := p.sched.register(ctx, osRunner); err != nil {
		return res, fmt.Errorf("wrote %s but could not register it: %w", p.Where, err)
	}
	res.Action = "installed"
	runErr := p.sched.runNow(ctx, osRunner)
	after, err := waitEvidence(ctx, evidence, p.Services, since, mtimeBefore, p.Wait)
	if err != nil {
		if runErr != nil {
			err = fmt.Errorf("%w; the run itself failed: %w", err, runErr)
		}
		return res, fmt.Errorf("registered the backstop (%s: %s) but its first run did not prove itself: %w", p.Kind, p.Where, err)
	}
	res.LastRun = after
	res.Message = fmt.Sprintf("registered the backstop (%s: %s, every %s) and ran it once: %s shows its cycles at %s",
		p.Kind, p.Where, human(p.Every), watchdogLast, after.UTC().Format(time.RFC3339))
	if runErr != nil {
		res.Notes = append(res.Notes, "the first run reported a failure (see `svc-ctl status`): "+runErr.Error())
	}
	if c, ok := p.sched.(cronFile); ok {
		if err := c.checkDaemon(); err != nil {
			return res, fmt.Errorf("%s, but %w", res.Message, err)
		}
	}
	return res, nil
}

// BackstopOptions says which backstop to look at or remove.
type BackstopOptions struct {
	User     bool
	StateDir string // for BackstopStatus's last run; "" = do not look
}

// UninstallBackstop unregisters and removes the backstop; not registered is
// "not registered; nothing to do".
func UninstallBackstop(ctx context.Context, opts BackstopOptions) (Result, error) {
	if err := checkScope(opts.User); err != nil {
		return Result{}, err
	}
	sched, s, err := bareScheduler(opts.User)
	if err != nil {
		return Result{}, err
	}
	res := Result{Platform: host.target().Platform, Scope: s.Scope(), Path: sched.where()}
	ok, err := sched.registered(ctx, osRunner)
	switch {
	case errors.Is(err, errCannotTell):
		ok = true // remove what may be there: unregistering is the person's request
	case err != nil:
		return res, err
	}
	if !ok {
		res.Action, res.Message = "none", "backstop not registered; nothing to do"
		return res, nil
	}
	if err := sched.unregister(ctx, osRunner); err != nil {
		return res, err
	}
	if err := removeFiles(sched.paths()); err != nil {
		return res, err
	}
	if err := sched.afterRemove(ctx, osRunner); err != nil {
		return res, err
	}
	res.Action, res.Message = "removed", fmt.Sprintf("removed the backstop (%s: %s)", sched.kind(), sched.where())
	return res, nil
}

// BackstopInfo is the backstop as the OS scheduler and the evidence show it.
type BackstopInfo struct {
	Registered bool          `json:"registered"`
	Kind       string        `json:"kind"`
	Where      string        `json:"where"`
	Every      time.Duration `json:"every_ns,omitempty"` // as registered; 0 when it cannot be read
	// LastRun is watchdog.last.json's mtime: the last cycle of any kind (the
	// agent's, a person's `svc-ctl start`, or the backstop's: the file does
	// not tell them apart).
	LastRun time.Time `json:"last_run,omitzero"`
	// LastTrigger is when the scheduler last fired it, where it records that
	// (systemd timers).
	LastTrigger time.Time `json:"last_trigger,omitzero"`
}

// BackstopStatus reports whether the backstop is registered and when it last
// ran. It changes nothing.
func BackstopStatus(ctx context.Context, opts BackstopOptions) (BackstopInfo, error) {
	sched, _, err := bareScheduler(opts.User)
	if err != nil {
		return BackstopInfo{}, err
	}
	info := BackstopInfo{Kind: sched.kind(), Where: sched.where()}
	if info.Registered, err = sched.registered(ctx, osRunner); err != nil {
		return info, err
	}
	if opts.StateDir != "" {
		info.LastRun = modTime(state.Paths{State: opts.StateDir}.WatchdogLast())
	}
	if info.Registered {
		info.LastTrigger = sched.lastTrigger(ctx, osRunner)
		info.Every = sched.interval(ctx, osRunner)
	}
	return info, nil
}

// errCannotTell: the scheduler answered, but not whether the backstop is
// registered.
var errCannotTell = errors.New("the scheduler's answer does not say whether the backstop is registered")

// bareScheduler is the scheduler for whoever runs the command, without a
// config: enough to find, report and remove the backstop.
func bareScheduler(user bool) (scheduler, Spec, error) {
	s, err := bareSpec(user)
	if err != nil {
		return nil, s, err
	}
	sched, err := newScheduler(s, host.target(), DefaultBackstopEvery)
	if err != nil {
		return nil, s, &UsageError{err}
	}
	return sched, s, nil
}

func writeFiles(files []File) error {
	for _, f := range files {
		if f.Temp {
			continue
		}
		p := host.path(f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("create the directory of %s: %w", f.Path, err)
		}
		if err := writeAtomic(p, []byte(f.Content), f.Mode); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	return nil
}

func removeFiles(paths []string) error {
	var errs []error
	for _, p := range paths {
		if err := os.Remove(host.path(p)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// writeAtomic writes b beside path and renames it into place, so a scheduler
// reading the directory never sees half a file.
func writeAtomic(path string, b []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
