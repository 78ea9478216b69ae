package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/control"
	"svcctl/state"
)

// When the config file does not load (a typo in one job's block), the
// running agent still runs the config it loaded before, and it can still
// act on its services. The verbs that act on them (start, stop, restart,
// pause, resume, run) hand the action to it through a request instead of
// refusing, and say so: a broken line must not keep a person from
// restarting an unrelated service.

// agentTarget finds the running agent's state dir. The file is loaded as
// everything that runs loads it (a config others can write is refused, and
// so is its state dir), but a file that is merely invalid is not refused
// here: the agent runs the config it loaded before (and a reload must let
// it see and refuse the new one); its state dir is then read as leniently
// as can be, and checked as every privileged verb checks it.
func agentTarget(g *globals) (p state.Paths, invalid error, err error) {
	cfg, err := loadConfigToRun(g)
	if err == nil {
		return state.PathsOf(cfg), nil, nil
	}
	if !brokenFile(err) {
		return p, nil, err
	}
	path, _, rerr := config.Resolve(g.configPath)
	if rerr != nil {
		return p, nil, err
	}
	if perr := config.CheckPermissions(path); perr != nil && !config.UserMode() {
		return p, nil, configError{perr}
	}
	dir, _ := config.PeekStateDir(path)
	p = state.Paths{State: dir}
	if cerr := state.Check(p, !config.UserMode()); cerr != nil {
		return p, nil, configError{cerr}
	}
	return p, err, nil
}

// brokenFile reports whether err is a config file that exists but does not
// load (not one others may change, not a missing file).
func brokenFile(err error) bool {
	var ce configError
	return errors.As(err, &ce) && !errors.Is(err, config.ErrInsecurePermissions) && !errors.Is(err, fs.ErrNotExist)
}

// handOver asks the running agent to do what kind says, when loadErr is a
// config file that does not load, and decodes its answer into out. handed
// is false when there is nothing to hand over to (the file is not merely
// broken, or no agent runs): the caller returns loadErr then.
func handOver(ctx context.Context, g *globals, loadErr error, kind control.Kind, args control.ActArgs, out any) (handed bool, err error) {
	if !brokenFile(loadErr) {
		return false, nil
	}
	p, broken, err := agentTarget(g)
	if err != nil || broken == nil {
		return false, nil
	}
	a, err := control.Running(p)
	if err != nil || !a.Takes(kind) {
		return false, nil
	}
	line, _, _ := strings.Cut(strings.TrimSpace(broken.Error()), "\n")
	fmt.Fprintf(g.stderr, "svc-ctl: the config does not load (%s);\nsvc-ctl: the running agent (pid %d) still runs the config it loaded before: it does this %s\n", line, a.PID, kind)
	_, resp, err := control.Send(context.WithoutCancel(ctx), p, kind, args, 5*time.Minute)
	if err != nil {
		return true, err
	}
	if resp.Refused != "" {
		if resp.Code == control.CodeUnknown || resp.Code == control.CodeUsage {
			return true, usageError{errors.New(resp.Refused)}
		}
		return true, errors.New(resp.Refused)
	}
	return true, resp.Decode(out)
}

// toAgent hands a person's start or restart to the running agent whenever
// one runs that takes it (the config loads: this is not handOver's case),
// and decodes its answer into out: the agent spawns the instance, so it is
// the subreaper its daemons are re-parented to (or it puts the instance in
// a cgroup of its own), and it watches the instance as its own from the
// first instruction. With no agent (or one too old to take it) handed is
// false and the command does it itself: the instance is then owned by its
// record alone ("plain", docs/architecture.md) until it is restarted under
// the agent.
func toAgent(ctx context.Context, g *globals, p state.Paths, kind control.Kind, args control.ActArgs, out any) (handed bool, err error) {
	a, err := control.Running(p)
	if err != nil || !a.Takes(kind) {
		return false, nil
	}
	_, resp, err := control.Send(context.WithoutCancel(ctx), p, kind, args, 5*time.Minute)
	switch {
	case errors.Is(err, control.ErrNoAgent), errors.Is(err, control.ErrNotServed):
		return false, nil // it stopped meanwhile: do it here
	case err != nil:
		return true, err
	case resp.Refused != "":
		if resp.Code == control.CodeUnknown || resp.Code == control.CodeUsage {
			return true, usageError{errors.New(resp.Refused)}
		}
		if resp.Code == control.CodeStopping {
			return false, nil // draining: it starts nothing more; do it here
		}
		return true, errors.New(resp.Refused)
	}
	return true, resp.Decode(out)
}
