package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
)

// command runs an argv (never a shell) with the event as JSON on stdin and
// its id and kind in SVCCTL_EVENT_ID and SVCCTL_EVENT_KIND. Exit 0 is
// delivered; anything else is retried.
type command struct {
	argv []string
	red  *redact.Redactor
}

func openCommand(n *config.Notify) (Channel, error) {
	if len(n.Command) == 0 || n.Command[0] == "" {
		return nil, errors.New("empty command")
	}
	return &command{argv: n.Command, red: redact.New()}, nil
}

// maxCommandOutput is how much of a failing command's output the error keeps.
const maxCommandOutput = 400

func (c *command) Send(ctx context.Context, e *Event) error {
	cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	cmd.Stdin = bytes.NewReader(append(e.JSON(), '\n'))
	cmd.Env = append(os.Environ(), "SVCCTL_EVENT_ID="+e.ID, "SVCCTL_EVENT_KIND="+e.Kind)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 2 * time.Second // a child that keeps the pipes open cannot hold the sender
	err := cmd.Run()
	if err == nil {
		return nil
	}
	tail := out.Bytes()
	if len(tail) > maxCommandOutput {
		tail = tail[len(tail)-maxCommandOutput:]
	}
	name := c.red.Args(c.argv)[0]
	if ctx.Err() != nil {
		return fmt.Errorf("command %s: no exit within the timeout", name)
	}
	if s := oneLine(c.red.String(string(tail))); s != "" {
		return fmt.Errorf("command %s: %w: %s", name, err, s)
	}
	return fmt.Errorf("command %s: %w", name, err)
}
