package install

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"svcctl/internal/child"
)

// runner runs one OS command (systemctl, launchctl, schtasks, or svc-ctl
// itself for a cron backstop's first run): always an argv, never a shell.
// Tests put a recorder in osRunner.
type runner interface {
	run(ctx context.Context, argv ...string) (output []byte, err error)
}

var osRunner runner = execRunner{}

type execRunner struct{}

// maxOutput bounds how much of a failed command's output goes into an error.
const maxOutput = 2048

func (execRunner) run(ctx context.Context, argv ...string) ([]byte, error) {
	cmd := child.CommandContext(ctx, argv[0], argv[1:]...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s: %w%s", strings.Join(argv, " "), err, tail(out))
	}
	return out, nil
}

// tail formats the end of a command's output for an error message.
func tail(out []byte) string {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return ""
	}
	if len(out) > maxOutput {
		out = append([]byte("..."), out[len(out)-maxOutput:]...)
	}
	return ": " + string(out)
}
