//go:build !unix && !windows

package proc

// StopSignals: none where svc-ctl cannot stop a tree.
var StopSignals []string
