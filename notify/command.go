package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"svcctl/config"
	"svcctl/internal/child"
	"svcctl/internal/redact"
	"svcctl/internal/runas"
	"svcctl/internal/svcenv"
)

// command runs an argv (never a shell) with the event as JSON on stdin and
// its id and kind in SVCCTL_EVENT_ID and SVCCTL_EVENT_KIND. Exit 0 is
// delivered; anything else is retried. It runs as the channel's `user` and
// `group` when set (a service's rule: a system agent then never runs it as
// root), else as the agent's user, and either way as a service of that
// user starts (internal/svcenv): its base environment, never the caller's
// (a root shell's `svc-ctl notify test` gives it nothing of its own), a
// bare program name looked up in that PATH, the user's home as its
// working directory.
type command struct {
	argv  []string
	runAs config.RunAs
	red   *redact.Redactor
}

func openCommand(n *config.Notify) (Channel, error) {
	if len(n.Command) == 0 || n.Command[0] == "" {
		return nil, errors.New("empty command")
	}
	return &command{argv: n.Command, runAs: n.RunAs, red: redact.New()}, nil
}

// maxCommandOutput is how much of a failing command's output the error keeps.
const maxCommandOutput = 400

func (c *command) Send(ctx context.Context, e *Event) error {
	name := c.red.Args(c.argv)[0]
	// Resolved at each delivery, as a service's user is at each start: the
	// user database may have changed since the config was loaded.
	id, err := c.runAs.Identity()
	if err != nil {
		return fmt.Errorf("command %s: run as %s: %w", name, c.runAs.User+":"+c.runAs.Group, err)
	}
	pe := svcenv.Process{RunAs: id, Env: map[string]string{"SVCCTL_EVENT_ID": e.ID, "SVCCTL_EVENT_KIND": e.Kind}}
	exe, err := pe.LookPath(c.argv[0])
	if err != nil {
		return fmt.Errorf("command %s: %w", name, err)
	}
	cmd := child.CommandContext(ctx, exe, c.argv[1:]...)
	cmd.Args[0] = c.argv[0]
	cmd.Stdin = bytes.NewReader(append(e.JSON(), '\n'))
	cmd.Env, cmd.Dir = pe.Environ(), pe.WorkDir()
	runas.Apply(cmd.Cmd, id)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 2 * time.Second // a child that keeps the pipes open cannot hold the sender
	err = cmd.Run()
	if err == nil {
		return nil
	}
	tail := out.Bytes()
	if len(tail) > maxCommandOutput {
		tail = tail[len(tail)-maxCommandOutput:]
	}
	if ctx.Err() != nil {
		return fmt.Errorf("command %s: no exit within the timeout", name)
	}
	if s := oneLine(c.red.String(string(tail))); s != "" {
		return fmt.Errorf("command %s: %w: %s", name, err, s)
	}
	return fmt.Errorf("command %s: %w", name, err)
}
