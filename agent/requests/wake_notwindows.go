//go:build !windows

package requests

import "context"

// osWakes: on unix the wakes come as signals, through Server.Reload and
// Server.Requests; there is nothing more to listen to.
func (s *Server) osWakes(context.Context) <-chan struct{} { return nil }
