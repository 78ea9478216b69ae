package proc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// WatchExit returns a channel that is closed when id's process exits. It is
// for processes svc-ctl did not spawn in this run (after an agent restart);
// for a Child, use Done. id must Match: otherwise ErrNotOurs or ErrGone.
//
// Windows: a SYNCHRONIZE handle is opened first and the identity checked
// second; while the handle is open the PID cannot be reused. The waiting
// goroutine blocks in WaitForSingleObject (one thread per watch) until the
// process exits.
func WatchExit(id Identity) (<-chan struct{}, error) {
	if id.PID <= 0 {
		return nil, fmt.Errorf("watch pid %d: %w", id.PID, ErrInvalidIdentity)
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(id.PID))
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return nil, fmt.Errorf("watch pid %d: %w", id.PID, ErrGone)
	}
	if err != nil {
		return nil, fmt.Errorf("watch pid %d: open process: %w", id.PID, err)
	}
	if err := verifyWatch(id); err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		defer windows.CloseHandle(h)
		windows.WaitForSingleObject(h, windows.INFINITE)
	}()
	return ch, nil
}
