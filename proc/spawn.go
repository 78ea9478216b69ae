package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// SpawnSpec says what to start and where its output goes.
type SpawnSpec struct {
	Argv    []string          // argv[0]: absolute, relative to Dir, or a bare name looked up in the agent's PATH; never a shell
	Dir     string            // working directory; empty = the agent's
	Env     map[string]string // set on top of os.Environ(); these win
	LogPath string            // stdout+stderr appended here (0600, parent dir 0700); empty = discarded
}

// Child is a process Spawn started. Its Wait runs in a goroutine, so it is
// reaped as soon as it exits and never lingers as a zombie.
type Child struct {
	Identity
	Done <-chan struct{} // closed once the process has exited and been reaped

	done     chan struct{}
	exitCode int
	exitErr  error
}

// ExitCode is the exit status once Done is closed: -1 while running, or when
// a signal ended the process.
func (c *Child) ExitCode() int {
	select {
	case <-c.done:
		return c.exitCode
	default:
		return -1
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
	path, err := resolveExe(s.Argv[0], s.Dir)
	if err != nil {
		return nil, err
	}
	if err := checkDir(s.Dir); err != nil {
		return nil, err
	}
	logf, err := openLog(s.LogPath)
	if err != nil {
		return nil, err
	}
	// The child gets its own copy of the descriptor; ours is not needed once
	// it runs, and keeping it would pin the file across a log rotation.
	defer logf.Close()

	env := mergeEnv(os.Environ(), s.Env)
	newCmd := func() *exec.Cmd {
		return &exec.Cmd{
			Path:   path,
			Args:   append([]string(nil), s.Argv...),
			Dir:    s.Dir,
			Env:    env,
			Stdout: logf, // an *os.File goes to the child as is: no copying goroutine
			Stderr: logf, // that would die with the agent
			// Stdin nil: exec opens os.DevNull.
		}
	}
	startedAt := time.Now().UTC()
	cmd, err := startDetached(newCmd)
	if err != nil {
		return nil, startError(path, err)
	}
	return newChild(cmd, path, startedAt)
}

// newChild records the identity of the started cmd and reaps it in the
// background. Identity is read before Wait can reap, so the PID cannot have
// been reused yet.
func newChild(cmd *exec.Cmd, path string, startedAt time.Time) (*Child, error) {
	pid := int32(cmd.Process.Pid)
	id, err := IdentityOf(pid)
	switch {
	case errors.Is(err, ErrGone), err != nil && !Alive(pid):
		// It already exited (a zombie's /proc/PID/exe cannot be read): a
		// program that dies at once is a start failure for the caller to
		// judge, not a spawn error. Done will close at once.
		id = exitedIdentity(pid, path)
	case err != nil:
		_ = cmd.Process.Kill() // our own unreaped child: the PID is still its
		_ = cmd.Wait()
		return nil, fmt.Errorf("spawn %s: record identity: %w", path, err)
	}
	id.StartedAt = startedAt
	done := make(chan struct{})
	c := &Child{Identity: id, Done: done, done: done}
	go func() {
		err := cmd.Wait()
		c.exitErr = err
		c.exitCode = cmd.ProcessState.ExitCode()
		close(done)
	}()
	return c, nil
}

// exitedIdentity fills what can still be known of a child that exited before
// its identity was read (a zombie keeps its create time, not its exe).
func exitedIdentity(pid int32, path string) Identity {
	id := Identity{PID: pid, Exe: path}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		id.Exe = real
	}
	if ct, err := (&process.Process{Pid: pid}).CreateTime(); err == nil {
		id.CreateTime = ct
	}
	return id
}

// resolveExe finds the executable exec would run: a bare name on PATH, a
// relative path against dir (as exec does), an absolute path as is.
func resolveExe(name, dir string) (string, error) {
	p := name
	if !filepath.IsAbs(name) && strings.ContainsAny(name, `/\`) && dir != "" {
		p = filepath.Join(dir, name)
	}
	found, err := exec.LookPath(p)
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		if p == name && !strings.ContainsAny(name, `/\`) {
			return "", fmt.Errorf("spawn %s: %w in PATH: give an absolute path in command", name, ErrNotFound)
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
// evidence), creating it 0600 and its directory 0700.
func openLog(path string) (*os.File, error) {
	if path == "" {
		path = os.DevNull
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("spawn: log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("spawn: open log: %w", err)
	}
	return f, nil
}

// mergeEnv returns base followed by extra's variables in a stable order.
// exec.Cmd keeps the last value of a duplicated key (case-insensitively on
// Windows), so extra wins. Values never appear in errors or logs.
func mergeEnv(base []string, extra map[string]string) []string {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, 0, len(base)+len(keys))
	env = append(env, base...)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
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
