package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Result says what Install or Uninstall did, for people and for --json.
type Result struct {
	Action   string   `json:"action"` // installed | restarted | updated | removed | none
	Platform string   `json:"platform"`
	Scope    string   `json:"scope"` // system | user
	Path     string   `json:"path,omitempty"`
	Command  []string `json:"command,omitempty"` // what the service runs
	Message  string   `json:"message"`
	Notes    []string `json:"notes,omitempty"` // things a person should know
	// Warnings are optional service settings the service manager did not
	// take (Windows: the failure-actions flag, the preshutdown timeout): the
	// agent service works without them, and install says what it lacks.
	// `svc-ctl verify` reads them back from the service manager and says so
	// again.
	Warnings []string `json:"warnings,omitempty"`
}

// Install checks req (NewPlan: nothing is touched when the config is broken)
// and then applies the plan.
func Install(ctx context.Context, req Request) (Result, error) {
	p, err := NewPlan(req)
	if err != nil {
		return Result{}, err
	}
	return Apply(ctx, p)
}

// Apply installs and starts the agent service as p says, idempotently:
// not installed -> install and start; installed as planned -> restart;
// installed differently (another binary, config or drain_timeout) -> stop,
// replace, start. Then it waits for the service manager to report it running.
func Apply(ctx context.Context, p *Plan) (Result, error) {
	res := Result{
		Platform: p.Unit.Target.Platform, Scope: p.Spec.Scope(), Path: p.Unit.Path,
		Command: append([]string{p.Spec.Exe}, p.Spec.AgentArgs()...),
	}
	if !p.Unit.Tuned {
		res.Notes = append(res.Notes, fmt.Sprintf("%s runs the agent with its own defaults: its stop timeout may be shorter than drain_timeout (%s), and it may stop supervised services with the agent", p.Unit.Target.Platform, human(p.Spec.DrainTimeout)))
	}
	if err := checkExe(p.Spec.Exe); err != nil {
		return res, &UsageError{err}
	}
	if !p.Spec.User {
		if err := checkExeTrusted(p.Spec.Exe); err != nil {
			return res, &UsageError{err}
		}
	}
	m, err := newManager(p.Unit, p.Spec)
	if err != nil {
		return res, err
	}
	if err := prepareStateDir(p); err != nil {
		return res, err
	}
	if err := converge(m, p, &res); err != nil {
		return res, err
	}
	if err := waitRunning(ctx, m, p.StartWait); err != nil {
		return res, fmt.Errorf("%s %s (%s, %s), but %w: see %s and `svc-ctl status`", res.Action, ServiceName, res.Platform, res.Scope, err, logHint(p))
	}
	return res, nil
}

// converge brings the installed service to the plan and starts it.
func converge(m manager, p *Plan, res *Result) error {
	def, ok, err := m.installed()
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%s (%s, %s)", ServiceName, res.Platform, res.Scope)
	switch {
	case !ok:
		res.Action, res.Message = "installed", "installed and started "+what
		if err := m.install(); err != nil {
			return err
		}
		if err := applySettings(p, res); err != nil {
			return err
		}
		return m.start()
	case sameDefinition(p.Unit, def):
		res.Action, res.Message = "restarted", "already installed; restarted "+what
		return restart(m, p, res)
	default:
		res.Action, res.Message = "updated", "updated the service definition and restarted "+what
		if err := m.stop(); err != nil {
			res.Notes = append(res.Notes, "stopping the old agent: "+err.Error())
		}
		if err := m.uninstall(); err != nil {
			return err
		}
		if err := m.install(); err != nil {
			return err
		}
		if err := applySettings(p, res); err != nil {
			return err
		}
		return m.start()
	}
}

// applySettings applies what the service manager holds beside the service
// itself (Windows: recovery actions, the failure-actions flag, the
// preshutdown timeout), before the service starts. A setting this service
// manager does not support is a warning in res, never an aborted install:
// the agent service runs without it. A refusal (access denied) is an error.
func applySettings(p *Plan, res *Result) error {
	if p.Unit.Windows == nil {
		return nil
	}
	warns, err := applySCMSettings(ServiceName, *p.Unit.Windows)
	for _, w := range warns {
		res.Warnings = append(res.Warnings, w.String())
	}
	return err
}

// sameDefinition: where kardianos' default is used there is nothing of ours
// to compare, so an installed service counts as the same.
func sameDefinition(u Unit, installed string) bool {
	switch {
	case u.Windows != nil:
		return strings.EqualFold(strings.TrimSpace(installed), u.CommandLine)
	case u.Content == "":
		return true
	}
	return installed == u.Content
}

// restart re-applies what can drift on Windows and restarts; a service that
// was not running (launchd cannot restart what is not loaded) is started.
func restart(m manager, p *Plan, res *Result) error {
	if err := applySettings(p, res); err != nil {
		return err
	}
	if err := m.restart(); err != nil {
		if startErr := m.start(); startErr != nil {
			return errors.Join(err, startErr)
		}
	}
	return nil
}

// waitRunning polls the service manager until it reports the agent running.
func waitRunning(ctx context.Context, m manager, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		ok, err := m.running()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("it is not running after %s (%w)", limit, last)
			}
			return fmt.Errorf("it is not running after %s", limit)
		case <-tick.C:
		}
	}
}

func checkExe(exe string) error {
	fi, err := os.Stat(exe)
	if err != nil {
		return fmt.Errorf("the svc-ctl binary: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("the svc-ctl binary %s is not a regular file", exe)
	}
	return nil
}

// prepareStateDir creates the state directory (0700) where the init system
// writes the agent's stdout and stderr into it: the redirect fails otherwise.
func prepareStateDir(p *Plan) error {
	if p.Unit.Target.GOOS == "windows" {
		return nil
	}
	if err := os.MkdirAll(p.Spec.StateDir, 0o700); err != nil {
		return fmt.Errorf("create agent.state_dir %s: %w", p.Spec.StateDir, err)
	}
	return nil
}

func logHint(p *Plan) string {
	switch p.Unit.Target.Platform {
	case "linux-systemd":
		if p.Spec.User {
			return "`journalctl --user -u " + ServiceName + "`"
		}
		return "`journalctl -u " + ServiceName + "`"
	case "windows-service":
		return p.Spec.StateDir + `\agent.log`
	}
	return p.Spec.stdioLogPath(p.Unit.Target.GOOS)
}

// UninstallOptions says which service to remove.
type UninstallOptions struct {
	User bool // the per-user service instead of the system one
}

// Uninstall stops and removes the agent service. Not installed is not an
// error: "not installed; nothing to do". The state directory (run history,
// logs, evidence) is never removed, and supervised services keep running.
func Uninstall(ctx context.Context, opts UninstallOptions) (Result, error) {
	if err := checkScope(opts.User); err != nil {
		return Result{}, err
	}
	s, err := bareSpec(opts.User)
	if err != nil {
		return Result{}, err
	}
	t := host.target()
	if err := scopeSupported(s, t); err != nil {
		return Result{}, &UsageError{err}
	}
	u := Unit{Target: t, Path: unitPath(s, t)}
	res := Result{Platform: t.Platform, Scope: s.Scope(), Path: u.Path}
	m, err := newManager(u, s)
	if err != nil {
		return res, err
	}
	return res, remove(m, &res)
}

func remove(m manager, res *Result) error {
	what := fmt.Sprintf("%s (%s, %s)", ServiceName, res.Platform, res.Scope)
	_, ok, err := m.installed()
	if err != nil {
		return err
	}
	if !ok {
		res.Action, res.Message = "none", "not installed; nothing to do ("+res.Platform+", "+res.Scope+")"
		return nil
	}
	if err := m.stop(); err != nil {
		res.Notes = append(res.Notes, "stopping the agent: "+err.Error())
	}
	if err := m.uninstall(); err != nil {
		return err
	}
	res.Action = "removed"
	res.Message = "stopped and removed " + what + "; supervised services keep running and the state directory is kept"
	return nil
}

// bareSpec is the Spec of whoever runs the command, without a config: enough
// to find and remove what is installed.
func bareSpec(user bool) (Spec, error) {
	acct, err := host.account()
	if err != nil {
		return Spec{}, err
	}
	return Spec{User: user, Home: acct.home, UID: acct.uid, UserID: acct.userID}, nil
}
