//go:build !unix && !windows

package probe

import "svcctl/internal/child"

// plainTree: no process groups here; a timeout kills the command only.
type plainTree struct{ cmd *child.Cmd }

func newTree(cmd *child.Cmd) *plainTree { return &plainTree{cmd: cmd} }
func (t *plainTree) start() error       { return t.cmd.Start() }
func (t *plainTree) awaitExit()         {}
func (t *plainTree) kill() error        { return nil }
func (t *plainTree) close()             {}
