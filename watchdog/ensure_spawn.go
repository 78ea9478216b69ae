package watchdog

import (
	"fmt"
	"os"
	"path/filepath"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/internal/runas"
	"svcctl/proc"
)

// Step 4 of a restart: the spawn, as the service's user, its output
// appended to its log opened through the log's pinned directory.

// spawn starts the service as its `user`/`group` (resolved now: the user
// database may have changed since the config was loaded), with the base
// environment plus env_file and env, its output appended to its log, which
// is opened in the log's pinned directory after the path was found to lead
// there still (logForSpawn) and checked on its descriptor.
func (c *cycle) spawn() (*proc.Child, error) {
	id, err := c.svc.RunAs.Identity()
	if err != nil {
		return nil, fmt.Errorf("run as %s: %w", c.svc.RunAs.User+":"+c.svc.RunAs.Group, err)
	}
	spec := proc.SpawnSpec{Argv: c.svc.Command, Dir: c.svc.Dir, SearchPath: c.svc.SearchPath, Env: c.svc.Env,
		Name: c.svc.Name, Cgroup: c.s.Cgroup, RunAs: id, Console: c.svc.StopSignal == config.WindowsStopSignal, Scope: c.s.Scope,
		Record: c.s.Paths.Pid(c.svc.Name)}
	out, err := c.openLog(id)
	if p := fsutil.ProblemOf(err); err != nil && (p == fsutil.ReadOnly || p == fsutil.NoSpace || p == fsutil.NoQuota) {
		// The disk refuses the service's log (a state dir remounted
		// read-only): a running service without its output beats a dead one.
		// The detail says the output is discarded; the next start that can
		// open the log writes it again.
		c.res.Detail.Output = fmt.Sprintf("discarded: %s cannot be opened (%s)", c.svc.Log, p)
		c.log.Warn("service.log_refused", "log", c.svc.Log, "problem", string(p), "err", err)
		return proc.Spawn(spec)
	}
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child has its own descriptor
	spec.Output = out
	c.st.Log, c.st.User = c.svc.Log, c.svc.RunAs.User
	return proc.Spawn(spec)
}

// openLog opens the service's log for the new instance: appended to (never
// truncated: earlier output is evidence), created 0600 and, for a service
// run as another user, readable by that user's group (0640) while it stays
// the agent's.
func (c *cycle) openLog(id *runas.Identity) (*os.File, error) {
	l, err := c.s.logForSpawn(c.svc, id)
	if err != nil {
		return nil, err
	}
	f, err := l.Dir.OpenFile(l.Name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, fsutil.FilePerm, l.Owners)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	if err := proc.ShareLog(f, id); err != nil {
		f.Close()
		return nil, fmt.Errorf("log %s: %w", l.Path(), err)
	}
	return f, nil
}

// privileged is whether this process acts as root (or an elevated
// administrator); tests swap it.
var privileged = func() bool { return !config.UserMode() }

// checkLogDir refuses, for a privileged agent, a log directory another user
// can write or replace, unless that user is the one the service runs as:
// they could otherwise swap the log for a link to any file between the
// check and the open. Its directory and every directory above it must be
// root's or that user's, and writable by no one else (sticky excepted). What
// is done in it goes through its pinned handle (logdir.go), and every file
// there is checked on its descriptor.
func checkLogDir(logPath string, id *runas.Identity) error {
	if !privileged() {
		return nil
	}
	if err := fsutil.CheckDirChain(filepath.Dir(logPath), serviceUIDs(id)...); err != nil {
		return fmt.Errorf("refusing log %s: %w", logPath, err)
	}
	return nil
}
