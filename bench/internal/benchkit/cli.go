package benchkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// CLIRun is one finished svc-ctl command: its wall time from fork to exit,
// the child's own user and system CPU (from its rusage), output and status.
type CLIRun struct {
	Wall, User, Sys time.Duration
	Stdout, Stderr  string
	Code            int
}

// CPU is the child's user+system time.
func (r CLIRun) CPU() time.Duration { return r.User + r.Sys }

// RunCLI runs bin with args, killed if it outlives timeout. A non-zero exit
// is not an error here: it is in Code.
func RunCLI(ctx context.Context, timeout time.Duration, bin string, args ...string) (CLIRun, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := CLIRun{Wall: time.Since(start), Stdout: out.String(), Stderr: errb.String()}
	if cmd.ProcessState != nil {
		r.User, r.Sys = cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime()
		r.Code = cmd.ProcessState.ExitCode()
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return r, fmt.Errorf("run %s %v: %w", bin, args, err)
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("%s %v did not finish within %s: killed", bin, args, timeout)
	}
	return r, nil
}
