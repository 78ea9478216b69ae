package svcenv

import (
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"

	"svcctl/internal/runas"
)

// base is the system environment block: what the SCM gives a service
// running as LocalSystem, without any logged-in user's variables. If the
// block cannot be built, the few system variables every program needs are
// taken (they are the same for every user).
func base(id *runas.Identity) map[string]string {
	m := map[string]string{}
	var block *uint16
	if err := windows.CreateEnvironmentBlock(&block, 0, false); err == nil {
		defer windows.DestroyEnvironmentBlock(block)
		for _, kv := range splitBlock(block) {
			if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
				m[k] = v
			}
		}
		return m
	}
	for _, k := range []string{"SystemRoot", "windir", "ComSpec", "PATHEXT", "Path", "ProgramData", "ProgramFiles"} {
		if v, ok := os.LookupEnv(k); ok {
			m[k] = v
		}
	}
	return m
}

// splitBlock splits a double-NUL-terminated UTF-16 environment block.
func splitBlock(block *uint16) []string {
	var out []string
	for p := unsafe.Pointer(block); ; {
		s := windows.UTF16PtrToString((*uint16)(p))
		if s == "" {
			return out
		}
		out = append(out, s)
		p = unsafe.Add(p, (len(windows.StringToUTF16(s)))*2)
	}
}

// defaultDir is the system directory (C:\Windows\System32): where the SCM
// starts a service, never the caller's working directory.
func defaultDir(*runas.Identity) string {
	if d, err := windows.GetSystemDirectory(); err == nil {
		return d
	}
	return `C:\Windows\System32`
}
