//go:build windows

package winsvc

import (
	"syscall"
	"testing"
)

func TestEscapeArgMatchesSyscall(t *testing.T) {
	for _, s := range []string{"", "a", "a b", `a"b`, `a\"b`, `C:\x y\`, `\\server\share\a b`, "t\tab"} {
		if got, want := EscapeArg(s), syscall.EscapeArg(s); got != want {
			t.Errorf("EscapeArg(%q) = %s, syscall.EscapeArg = %s", s, got, want)
		}
	}
}
