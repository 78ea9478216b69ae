//go:build !unix

package ui

import (
	"fmt"
	"os"
	"os/exec"

	"svcctl/internal/fsutil"
)

// invoker is the person `ui --open` opens the page for: this process's
// user (there is no sudo here).
type invoker struct{ home string }

func currentInvoker() (*invoker, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("no home directory to put the page's redirect file in: %w", err)
	}
	return &invoker{home: home}, nil
}

func (w *invoker) apply(*exec.Cmd)               {}
func (w *invoker) own(*fsutil.Dir, string) error { return nil }
func (w *invoker) mine(*fsutil.Dir) error        { return nil }
func (w *invoker) ownFile(f *os.File) error      { return nil }
