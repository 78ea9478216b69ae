package proc

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"svcctl/internal/child"
	"svcctl/internal/runas"
	"svcctl/internal/svcenv"
)

// SpawnSpec says what to start, where its output goes, and what owns the
// tree it grows. New needs (credentials, limits) are new fields: a zero
// value always means "as the agent".
type SpawnSpec struct {
	Argv []string // argv[0]: absolute, relative to Dir, or a bare name looked up in the PATH it gets (svcenv); never a shell
	Dir  string   // working directory; empty = the home of the user it runs as (svcenv.Process.WorkDir)
	// SearchPath is search_path: absolute directories put before the base
	// PATH (internal/svcenv).
	SearchPath []string
	// Env is the service's env_file and env (config merged them): set on
	// top of the base environment (internal/svcenv), never on the agent's
	// or the caller's own environment, so a start from a shell and one by
	// the agent give the same environment.
	Env     map[string]string
	LogPath string // stdout+stderr appended here (0600, parent dir 0700; never through a link); empty = discarded
	// Output, when set, is the instance's stdout and stderr instead of
	// LogPath: a pipe's write end whose other end the caller reads (a job's
	// output, captured within bounds). The caller keeps and closes it.
	Output *os.File
	// RunAs, when set, is who the instance runs as (Linux, macOS: uid, gid,
	// supplementary groups; HOME, USER and LOGNAME follow). Its log is
	// created by the agent, owned by the agent's user and readable by RunAs'
	// group (0640).
	RunAs *runas.Identity
	// Name names the instance's cgroup (Linux) and job object (Windows):
	// the service or job name, [a-z0-9][a-z0-9._-]{0,62}. Empty = "service".
	Name string
	// Cgroup (Linux) is a cgroup v2 directory the caller may create
	// sub-cgroups in (see DelegatedCgroup). When set, the instance gets a
	// cgroup of its own under it; empty = the session alone owns the tree.
	Cgroup string
	// Console (Windows): the leader gets a hidden console of its own and
	// leads a new process group on it, which a stop can then send
	// CTRL_BREAK (stop_signal = "SIGBREAK"); without it the leader has no
	// console at all. Ignored elsewhere.
	Console bool
	// Scope: Cgroup is a transient scope systemd made around an agent
	// started by hand (the instance's mode is ModeScope, not ModeCgroup).
	Scope bool
	// Record, when set, is the path of the pid file the caller writes the
	// instance's record to (WriteInstance) once Spawn returns. Spawn writes
	// the pending record beside it before the fork (see Pending), so an
	// instance whose caller dies before that write is still named.
	Record string
}

// Child is an instance Spawn started. The leader's Wait runs in a
// goroutine, so it is reaped as soon as it exits and never lingers as a
// zombie. Done closing ends the leader, not necessarily the instance: a
// launcher may exit while its tree lives on (see Members).
type Child struct {
	Instance
	Done <-chan struct{} // closed once the leader has exited and been reaped
	// Notes says where ownership is weaker than asked ("no cgroup: ...");
	// empty when everything asked for is in place.
	Notes []string

	done     chan struct{}
	exitCode int
	exitErr  error
	exit     string
}

// ExitCode is the leader's exit status once Done is closed: -1 while
// running, or when a signal ended it (Exit says which).
func (c *Child) ExitCode() int {
	select {
	case <-c.done:
		return c.exitCode
	default:
		return -1
	}
}

// Exit says how the leader ended, for people: "exited with code 3",
// "killed by SIGKILL"; "running" before Done is closed.
func (c *Child) Exit() string {
	select {
	case <-c.done:
		return c.exit
	default:
		return "running"
	}
}

// ExitErr is what Wait returned once Done is closed (nil for exit status 0;
// an *exec.ExitError otherwise); nil while running.
func (c *Child) ExitErr() error {
	select {
	case <-c.done:
		return c.exitErr
	default:
		return nil
	}
}

// Spawn starts s detached from the calling process (see the package comment)
// and returns once the executable is running. Stdin is the null device. A
// missing executable gives an error wrapping ErrNotFound and naming the path.
func Spawn(s SpawnSpec) (*Child, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return nil, errors.New("spawn: empty command: give the program as the first element of command")
	}
	marker, err := newMarker()
	if err != nil {
		return nil, err
	}
	pe := svcenv.Process{RunAs: s.RunAs, Env: withoutMarker(s.Env), SearchPath: s.SearchPath, Dir: s.Dir}
	// The marker last: a service's own env cannot set or clear it.
	env, dir := append(pe.Environ(), MarkerEnv+"="+marker), pe.WorkDir()
	path, err := resolveExe(s.Argv[0], dir, env)
	if err != nil {
		return nil, err
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	logf := s.Output
	if logf == nil {
		if logf, err = openLog(s.LogPath, s.RunAs); err != nil {
			return nil, err
		}
		// The child gets its own copy of the descriptor; ours is not needed
		// once it runs, and keeping it would pin the file across a rotation.
		defer logf.Close()
	}

	own, err := prepareOwner(s)
	if err != nil {
		return nil, err
	}
	defer own.close()
	newCmd := func() *child.Cmd {
		c := child.Command(path)
		c.Args = append([]string(nil), s.Argv...)
		c.Dir = dir
		c.Env = env
		c.Stdout = logf // an *os.File goes to the child as is: no copying goroutine
		c.Stderr = logf // that would die with the agent
		// Stdin nil: exec opens os.DevNull.
		return c
	}
	startedAt := time.Now().UTC()
	var pendingNote string
	if s.Record != "" {
		// A disk that refuses it does not stop the start (a running service
		// beats a dead one): the window stays open for this instance, and
		// its record says so.
		p := Pending{Marker: marker, UID: runsAs(s.RunAs), Cgroup: own.cgroup(), Job: own.job(),
			Console: s.Console && runtime.GOOS == "windows", Since: startedAt}
		if err := writePending(s.Record, p); err != nil {
			clearPending(s.Record) // an older one must not name another instance
			pendingNote = fmt.Sprintf("the pending record was not written (%v): an agent killed before this instance's pid file is written leaves it unnamed", err)
		}
	}
	cmd, err := own.start(newCmd)
	if err != nil {
		own.abandon()
		if s.Record != "" {
			clearPending(s.Record)
		}
		return nil, startError(path, err)
	}
	c, err := newChild(cmd, path, startedAt)
	if err != nil {
		own.abandon()
		if s.Record != "" {
			clearPending(s.Record)
		}
		return nil, err
	}
	c.Cgroup, c.Job = own.cgroup(), own.job()
	c.Marker, c.Mode, c.UID = marker, modeOf(c.Instance), runsAs(s.RunAs)
	if c.Mode == ModeCgroup && s.Scope {
		c.Mode = ModeScope
	}
	c.Console = s.Console && runtime.GOOS == "windows"
	c.Notes = own.notes()
	if pendingNote != "" {
		c.Notes = append(c.Notes, pendingNote)
	}
	return c, nil
}

// newMarker is a fresh instance marker: 96 random bits, hex.
func newMarker() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("spawn: instance marker: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// withoutMarker is env without a marker of its own (a config that sets
// SVCCTL_INSTANCE cannot claim another instance's processes).
func withoutMarker(env map[string]string) map[string]string {
	if _, ok := env[MarkerEnv]; !ok {
		return env
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		if k != MarkerEnv {
			out[k] = v
		}
	}
	return out
}

// modeOf says what owns a new instance's tree besides its records.
func modeOf(inst Instance) string {
	switch {
	case inst.Cgroup != "":
		return ModeCgroup
	case inst.Job != "":
		return ModeJob
	case child.IsSubreaper():
		return ModeSubreaper
	}
	return ModePlain
}

// newChild records the identity of the started cmd and reaps it in the
// background. The identity is read before Wait can reap, so the PID cannot
// have been reused yet; a zombie (a program that exited at once) still has
// its start stamp, so its record is as good as a live one's.
func newChild(cmd *child.Cmd, path string, startedAt time.Time) (*Child, error) {
	pid := int32(cmd.Process.Pid)
	pi, err := readProc(pid)
	if err != nil {
		_ = cmd.Process.Kill() // our own unreaped child: the PID is still its
		_ = cmd.Wait()
		return nil, fmt.Errorf("spawn %s: record identity: %w", path, err)
	}
	id := identityFrom(pi)
	if id.Exe == "" { // exited already: a zombie has no readable exe
		id.Exe = path
		if real, err := filepath.EvalSymlinks(path); err == nil {
			id.Exe = real
		}
	}
	id.StartedAt = startedAt
	done := make(chan struct{})
	c := &Child{Instance: Instance{Identity: id}, Done: done, done: done}
	go func() {
		err := cmd.Wait()
		c.exitErr = err
		c.exitCode = cmd.ProcessState.ExitCode()
		c.exit = DescribeExit(cmd.ProcessState)
		close(done)
	}()
	return c, nil
}

// resolveExe finds the executable exec would run: a bare name on the PATH
// of env (the service's environment, never the caller's), a relative path
// against dir (as exec does), an absolute path as is.
func resolveExe(name, dir string, env []string) (string, error) {
	p := name
	if !filepath.IsAbs(name) && strings.ContainsAny(name, `/\`) && dir != "" {
		p = filepath.Join(dir, name)
	}
	lookup := exec.LookPath
	if !strings.ContainsAny(name, `/\`) {
		lookup = func(n string) (string, error) { return svcenv.LookPath(n, env) }
	}
	found, err := lookup(p)
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		if p == name && !strings.ContainsAny(name, `/\`) {
			// Which PATH was searched, and where the caller's finds it (svcenv.NotFoundError).
			return "", fmt.Errorf("spawn %s: %w: %w", name, ErrNotFound, err)
		}
		return "", fmt.Errorf("spawn %s: %w: check the path in command", p, ErrNotFound)
	case errors.Is(err, exec.ErrDot):
		return "", fmt.Errorf("spawn %s: found only relative to the current directory (%s): give an absolute path in command", name, found)
	case errors.Is(err, fs.ErrPermission):
		return "", fmt.Errorf("spawn %s: not executable: %w: fix its mode or the path in command", p, err)
	case err != nil:
		return "", fmt.Errorf("spawn %s: %w", p, err)
	}
	if abs, err := filepath.Abs(found); err == nil {
		found = abs
	}
	return found, nil
}

func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("spawn: working directory: %w: create it or fix dir", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("spawn: working directory %s is not a directory: fix dir", dir)
	}
	return nil
}

// openLog opens path for appending (never truncating: earlier output is
// evidence), creating it 0600 and its directory 0700, and never through a
// symbolic link: a link planted as the log would have root append the
// service's output to any file. For a service run as
// another user the log stays the agent's, readable by that user's group.
func openLog(path string, id *runas.Identity) (*os.File, error) {
	if path == "" {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("spawn: log directory: %w", err)
	}
	f, err := openAppend(path) // renamable while the service writes (logfile_*.go)
	if err != nil {
		return nil, fmt.Errorf("spawn: open log: %w", err)
	}
	if err := ShareLog(f, id); err != nil {
		f.Close()
		return nil, fmt.Errorf("spawn: log %s: %w", path, err)
	}
	return f, nil
}

// startError explains a failed start; the path is named, the argv and env
// are not (they may carry secrets).
func startError(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("spawn %s: %w: %w", path, ErrNotFound, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("spawn %s: %w: check the file's mode and the agent's user", path, err)
	}
	return fmt.Errorf("spawn %s: %w", path, err)
}
