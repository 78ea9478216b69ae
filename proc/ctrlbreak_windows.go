package proc

import (
	"errors"
	"fmt"
)

// ctrlBreak: a placeholder until the console path lands.
func (k *handleKiller) ctrlBreak(m Member) error {
	return fmt.Errorf("CTRL_BREAK to pid %d: %w", m.PID, errors.ErrUnsupported)
}
