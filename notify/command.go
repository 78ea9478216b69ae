package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
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
// root), in the base environment a service of that user gets
// (internal/svcenv); without them, as the agent, in its environment.
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
	cmd := child.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	cmd.Stdin = bytes.NewReader(append(e.JSON(), '\n'))
	vars := map[string]string{"SVCCTL_EVENT_ID": e.ID, "SVCCTL_EVENT_KIND": e.Kind}
	if id != nil {
		// Another user's command gets that user's base environment (HOME,
		// USER, the services' PATH), as a service run as them does: never
		// root's.
		cmd.Env = svcenv.Build(id, vars)
		runas.Apply(cmd.Cmd, id)
	} else {
		cmd.Env = append(os.Environ(), "SVCCTL_EVENT_ID="+e.ID, "SVCCTL_EVENT_KIND="+e.Kind)
	}
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
