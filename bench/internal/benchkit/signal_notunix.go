//go:build !unix

package benchkit

import "os"

// terminate: there is no SIGTERM to send; the agent is killed (no drain).
func terminate(p *os.Process) error { return p.Kill() }
