//go:build !unix

package agent

// fdLimit: Windows has no per-process descriptor limit of this kind.
func fdLimit() uint64 { return 0 }
