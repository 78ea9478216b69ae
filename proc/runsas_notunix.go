//go:build !unix

package proc

import "svcctl/internal/runas"

// runsAs: no uid to check membership against here (a Windows tree is its
// job's).
func runsAs(*runas.Identity) *uint32 { return nil }
