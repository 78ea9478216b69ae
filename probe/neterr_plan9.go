//go:build plan9

package probe

import "strings"

// Plan 9 reports network errors as strings, without errno values.
func isRefused(err error) bool { return strings.Contains(err.Error(), "connection refused") }

func isReset(err error) bool { return strings.Contains(err.Error(), "connection reset") }
