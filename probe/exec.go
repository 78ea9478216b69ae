package probe

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"time"

	"svcctl/internal/child"
	"svcctl/internal/runas"
	"svcctl/internal/svcenv"
)

const (
	// maxOutput is how much of a health command's combined output is kept:
	// the tail, where the error usually is.
	maxOutput = 4 << 10
	// waitDelay bounds how long a command's pipes may stay open after it
	// exited or was killed (a stray grandchild holding stdout must not hang
	// the check).
	waitDelay = 500 * time.Millisecond
)

// probeExec runs s.Argv (never through a shell) as the service's user, in
// s.Dir (else that user's home), with that user's base environment plus
// s.Env and search_path (internal/svcenv: the one rule of every process
// svc-ctl starts), and is healthy when it exits 0.
//
// The check owns its whole tree: whatever the command started is ended
// when the command ends, not only on timeout, so a health script that
// leaves `sleep 30 &` behind does not pile up a process per cycle. Unix: the
// command leads a process group; once it exits, and before it is reaped (so
// the group id cannot be reused meanwhile), the group is sent SIGKILL.
// Windows: the command runs in a job object that kills its members when
// closed. A grandchild that leaves the group (setsid) is out of reach.
func probeExec(ctx context.Context, s Spec) Result {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return unhealthy("no command to run")
	}
	if s.RunAsErr != nil {
		return unhealthy("not run: its user cannot be resolved: %v", s.RunAsErr)
	}
	out := &tailBuffer{max: maxOutput}
	pe := svcenv.Process{RunAs: s.RunAs, Env: s.Env, SearchPath: s.SearchPath, Dir: s.Dir}
	env := pe.Environ()
	exe, err := svcenv.LookPath(s.Argv[0], env)
	if err != nil {
		return unhealthy("cannot start %s: %v", s.Argv[0], err)
	}
	cmd := child.CommandContext(ctx, exe, s.Argv[1:]...)
	cmd.Args[0] = s.Argv[0]
	cmd.Dir = pe.WorkDir()
	cmd.Env = env                     // the service's environment, never the caller's (svcenv)
	cmd.Stdout, cmd.Stderr = out, out // the same writer: one pipe, output in order
	t := newTree(cmd)
	runas.Apply(cmd.Cmd, s.RunAs)
	cmd.Cancel = t.kill // on timeout: the whole tree, not only the command
	cmd.WaitDelay = waitDelay
	if err := t.start(); err != nil {
		return judgeExit(ctx, s, cmd.Cmd, err, out)
	}
	t.awaitExit()
	t.kill() // what the command left behind
	err = cmd.Wait()
	t.close()
	return judgeExit(ctx, s, cmd.Cmd, err, out)
}

// judgeExit turns the outcome of cmd.Run into a Result. Env values are
// scrubbed from the output by finish, with every other string of the Result.
func judgeExit(ctx context.Context, s Spec, cmd *exec.Cmd, err error, out *tailBuffer) Result {
	d := map[string]any{}
	if o, cut := out.tail(); o != "" {
		d["output"] = o // finish redacts it
		if cut {
			d["output_truncated"] = true
		}
	}
	ps := cmd.ProcessState
	if ps != nil {
		d["exit_code"] = ps.ExitCode()
	}
	var ee *exec.Error
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay) && ps != nil && ps.Success():
		return Result{Healthy: true, Detail: d}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return withDetail(unhealthy("%s", timeoutReason(s, "command still running, killed")), d)
	case ctx.Err() != nil:
		return withDetail(unhealthy("canceled before a verdict"), d)
	case ps != nil:
		return withDetail(unhealthy("%s", ps.String()), d) // "exit status 1", "signal: killed"
	case errors.As(err, &ee):
		return withDetail(unhealthy("cannot start %s: %s", s.Argv[0], ee.Err), d)
	default:
		return withDetail(unhealthy("cannot start %s: %s", s.Argv[0], innerMessage(err)), d)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.max { // compact now and then, not on every write
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

// tail returns the kept output as valid UTF-8 and whether some was dropped.
func (b *tailBuffer) tail() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.buf
	if len(t) > b.max {
		t = t[len(t)-b.max:]
	}
	return strings.ToValidUTF8(string(t), ""), b.total > int64(len(t))
}
