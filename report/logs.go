package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/runtrace"
	"svcctl/state"
	"svcctl/watchdog"
)

// Log is one log `svc-ctl logs` shows, and where the files it is rotated to
// are: what following it across rotations needs.
type Log struct {
	Name string `json:"name"` // the service or job, or "agent"
	Kind string `json:"kind"` // service | job | agent
	Path string `json:"path"`
	// Moved lists where the live file goes when it is replaced by a new one
	// (a restart's rotation to runtime.prev.log, a job run's to
	// last.prev.log, lumberjack's backups of agent.log): globs.
	Moved []string `json:"-"`
	// Cut is where a size rotation copies what it cuts before truncating
	// the live file in place (runtime.log.1); "" when there is none.
	Cut string `json:"-"`
	// Live is false for a file nothing writes any more (--prev).
	Live bool `json:"live"`

	pin *logPin // the directory, pinned at the first look (LogOf); nil: each look pins its own
}

// A log is read only through its pinned directory (fsutil.Dir): the
// directory is opened once, following no link, and every file read after
// (the log, the file a rotation moved it to, the copy a cut kept) is a name
// in it, opened without following a link and checked on its descriptor: a
// regular file with one link, owned by the agent's user or the service's.
// A root `svc-ctl logs` of a service whose user owns the log's directory
// cannot be turned into a reader of any other file of root's.

// logPin is a log's directory, pinned at the first look that finds it.
type logPin struct {
	path   string
	owners fsutil.Owners
	mu     sync.Mutex
	dir    *fsutil.Dir
}

// dirOf is the log's pinned directory (fs.ErrNotExist while it does not
// exist yet).
func (l Log) dirOf() (*fsutil.Dir, error) {
	p := l.pin
	if p == nil {
		p = &logPin{path: filepath.Dir(l.Path)}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dir == nil {
		d, err := fsutil.OpenDir(p.path)
		if err != nil {
			return nil, err
		}
		p.dir = d
	}
	return p.dir, nil
}

// openIn opens the file base (a name in the log's directory), checked.
func (l Log) openIn(base string) (*os.File, error) {
	d, err := l.dirOf()
	if err != nil {
		return nil, err
	}
	var owners fsutil.Owners
	if l.pin != nil {
		owners = l.pin.owners
	}
	return d.Open(base, owners)
}

// open opens the log's own file.
func (l Log) open() (*os.File, error) { return l.openIn(filepath.Base(l.Path)) }

// Close lets go of the log's pinned directory.
func (l Log) Close() {
	if l.pin == nil {
		return
	}
	l.pin.mu.Lock()
	defer l.pin.mu.Unlock()
	if l.pin.dir != nil {
		l.pin.dir.Close()
		l.pin.dir = nil
	}
}

// pinned gives l the directory pin its reads go through, with the owners a
// file there may have: the agent's user and uids (a service's user).
func pinned(l Log, uids ...int) Log {
	l.pin = &logPin{path: filepath.Dir(l.Path), owners: fsutil.TrustedOwners(uids...)}
	return l
}

// LogKind values.
const (
	LogService = "service"
	LogJob     = "job"
	LogAgent   = "agent"
)

// LogOf names the log of a service (its runtime.log, wherever its `log`
// key puts it), a job (last.log) or the agent (agent.log); prev asks for
// the one before (runtime.prev.log, last.prev.log). A name that is neither
// is watchdog.ErrUnknownName.
func LogOf(cfg *config.Config, name string, prev bool) (Log, error) {
	p := state.PathsOf(cfg)
	kind, bare := runtrace.SplitID(name) // watchdog:NAME and job:NAME say which, when a job and a service share a name
	switch {
	case kind == runtrace.KindWatchdog && cfg.Service(bare) != nil:
		return LogOf(cfg, bare, prev)
	case kind == runtrace.KindJob && cfg.Job(bare) != nil:
		job := cfg.Job(bare)
		if prev {
			return pinned(Log{Name: bare, Kind: LogJob, Path: p.JobPrevLog(job.Name)}), nil
		}
		return pinned(Log{Name: bare, Kind: LogJob, Path: p.JobLog(job.Name), Moved: []string{p.JobPrevLog(job.Name)}, Live: true}), nil
	case name == LogAgent:
		if prev {
			return Log{}, errors.New("agent.log has no previous file: its rotations are agent-<time>.log beside it")
		}
		backups := filepath.Join(p.State, "agent-*.log")
		return pinned(Log{Name: name, Kind: LogAgent, Path: p.AgentLog(), Moved: []string{backups}, Live: true}), nil
	case cfg.Service(name) != nil:
		svc := cfg.Service(name)
		uids := serviceUID(svc)
		if prev {
			return pinned(Log{Name: name, Kind: LogService, Path: p.PrevLog(svc)}, uids...), nil
		}
		return pinned(Log{Name: name, Kind: LogService, Path: p.RuntimeLog(svc), Moved: []string{p.PrevLog(svc)},
			Cut: p.RotatedLog(svc), Live: true}, uids...), nil
	case cfg.Job(name) != nil:
		return LogOf(cfg, runtrace.JobID(name), prev)
	}
	return Log{}, fmt.Errorf("%w: %q", watchdog.ErrUnknownName, name)
}

// serviceUID is the uid of the user the service runs as (none: the agent's,
// or one the user database no longer knows).
func serviceUID(svc *config.Service) []int {
	if id, err := svc.RunAs.Identity(); err == nil && id != nil {
		return []int{int(id.UID)}
	}
	return nil
}

// LastLines is the last n lines of the log, at most maxBytes of its end,
// read through its pinned directory (nil, nil when there is none).
func LastLines(l Log, n int, maxBytes int64) ([]string, error) {
	d, err := l.dirOf()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var owners fsutil.Owners
	if l.pin != nil {
		owners = l.pin.owners
	}
	return fsutil.TailLinesIn(d, filepath.Base(l.Path), n, maxBytes, owners)
}
