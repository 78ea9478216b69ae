package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"svcctl/internal/runas"
)

// StopCommand is a service's stop_command: an argv (never a shell) run as
// the service's user, in its directory, with its environment, to ask it to
// stop its own way (`pg_ctl stop -m fast`, `nginx -s quit`). It runs in a
// session of its own: whatever it leaves behind is stopped after it.
type StopCommand struct {
	Argv  []string
	Dir   string
	Env   map[string]string
	RunAs *runas.Identity
	Name  string // the service's name (names its cgroup or job)
}

// CommandEnd is how a stop command ran.
type CommandEnd struct {
	Exit     string `json:"exit"`                // "exited with code 0", "killed at its timeout 5s", "not started: ..."
	ExitCode *int   `json:"exit_code,omitempty"` // when it exited by itself
	Output   string `json:"output,omitempty"`    // its last output lines (4 KiB at most)
	TookMS   int64  `json:"took_ms"`
}

// maxCommandOutput is how much of a stop command's output is kept.
const maxCommandOutput = 4 << 10

// runStopCommand runs c for at most limit, then stops what is left of its
// tree (1 s from SIGTERM to SIGKILL).
func runStopCommand(ctx context.Context, c StopCommand, limit time.Duration) CommandEnd {
	start := time.Now()
	end := func(e CommandEnd) CommandEnd { e.TookMS = time.Since(start).Milliseconds(); return e }
	pr, pw, err := os.Pipe()
	if err != nil {
		return end(CommandEnd{Exit: "not started: " + err.Error()})
	}
	ch, err := Spawn(SpawnSpec{Argv: c.Argv, Dir: c.Dir, Env: c.Env, RunAs: c.RunAs, Output: pw, Name: c.Name})
	pw.Close()
	if err != nil {
		pr.Close()
		return end(CommandEnd{Exit: "not started: " + err.Error()})
	}
	out := &tail{max: maxCommandOutput}
	copied := make(chan struct{})
	go func() { defer close(copied); io.Copy(out, pr) }()
	timer := time.NewTimer(max(limit, 0))
	defer timer.Stop()
	var e CommandEnd
	select {
	case <-ch.Done:
		code := ch.ExitCode()
		e.Exit = ch.Exit()
		if code >= 0 {
			e.ExitCode = &code
		}
	case <-timer.C:
		e.Exit = fmt.Sprintf("killed at its timeout %s", limit.Round(time.Millisecond))
	case <-ctx.Done():
		e.Exit = "interrupted: " + context.Cause(ctx).Error()
	}
	// Its tree goes with it (a helper it left behind).
	_, _ = StopTree(context.WithoutCancel(ctx), ch.Instance, time.Second)
	select {
	case <-copied:
	case <-time.After(500 * time.Millisecond):
	}
	pr.Close()
	<-copied
	e.Output = strings.TrimSpace(out.String())
	return end(e)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.b), "")
}
