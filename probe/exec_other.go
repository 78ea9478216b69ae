//go:build !unix && !windows

package probe

import "os/exec"

// plainTree: no process groups here; a timeout kills the command only.
type plainTree struct{ cmd *exec.Cmd }

func newTree(cmd *exec.Cmd) *plainTree { return &plainTree{cmd: cmd} }
func (t *plainTree) start() error      { return t.cmd.Start() }
func (t *plainTree) awaitExit()        {}
func (t *plainTree) kill() error       { return nil }
func (t *plainTree) close()            {}
