package child

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"sync"
)

// Cmd is an exec.Cmd whose start and wait go through the registry. Its
// fields are exec.Cmd's (Dir, Env, Stdout, SysProcAttr, Process, ...); only
// Start, Wait, Run, Output and CombinedOutput are its own. Never call the
// embedded Cmd's methods of the same names: that bypasses the registry
// (spawn_test.go at the root fails on it).
type Cmd struct {
	*exec.Cmd
}

// Command is exec.Command through the registry.
func Command(name string, arg ...string) *Cmd {
	return &Cmd{Cmd: exec.Command(name, arg...)}
}

// CommandContext is exec.CommandContext through the registry: ctx ending
// kills the process (or calls Cancel, when set).
func CommandContext(ctx context.Context, name string, arg ...string) *Cmd {
	return &Cmd{Cmd: exec.CommandContext(ctx, name, arg...)}
}

// registry is every process a Cmd started and no Wait has reaped yet, by
// pid. mu is held across the fork (Start) and by the reaper while it looks,
// so a child cannot exit unregistered between the two.
var registry = struct {
	mu   sync.Mutex
	pids map[int]int // pid -> Cmds waiting for it (1; more only across a reuse)
}{pids: map[int]int{}}

// Start starts the command and registers its pid before anyone can reap it.
func (c *Cmd) Start() error {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if err := c.Cmd.Start(); err != nil {
		return err
	}
	registry.pids[c.Process.Pid]++
	return nil
}

// Wait waits for the command (exec.Cmd.Wait) and then forgets its pid.
func (c *Cmd) Wait() error {
	err := c.Cmd.Wait()
	if c.Process != nil {
		registry.mu.Lock()
		if n := registry.pids[c.Process.Pid]; n > 1 {
			registry.pids[c.Process.Pid] = n - 1
		} else {
			delete(registry.pids, c.Process.Pid)
		}
		registry.mu.Unlock()
	}
	return err
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Output runs the command and returns its standard output; as exec's, an
// *exec.ExitError carries the start of its standard error when Stderr was
// not set.
func (c *Cmd) Output() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("exec: Stdout already set")
	}
	var out bytes.Buffer
	c.Stdout = &out
	var errb *prefixBuffer
	if c.Stderr == nil {
		errb = &prefixBuffer{max: 32 << 10}
		c.Stderr = errb
	}
	err := c.Run()
	var ee *exec.ExitError
	if errb != nil && errors.As(err, &ee) {
		ee.Stderr = errb.b
	}
	return out.Bytes(), err
}

// CombinedOutput runs the command and returns its standard output and
// standard error, interleaved.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if c.Stdout != nil || c.Stderr != nil {
		return nil, errors.New("exec: Stdout or Stderr already set")
	}
	var b syncBuffer
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	return b.Bytes(), err
}

// registered reports whether pid is a process a Cmd started and has not
// waited for (the caller holds registry.mu).
func registered(pid int) bool { return registry.pids[pid] > 0 }

// prefixBuffer keeps the first max bytes written to it.
type prefixBuffer struct {
	max int
	b   []byte
}

func (p *prefixBuffer) Write(b []byte) (int, error) {
	if room := p.max - len(p.b); room > 0 {
		p.b = append(p.b, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

// syncBuffer is a bytes.Buffer two copying goroutines may write at once
// (stdout and stderr are the same writer, but os/exec copies each pipe in
// its own goroutine when they are not *os.File).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Bytes()
}
